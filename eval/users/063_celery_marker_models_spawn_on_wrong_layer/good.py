from celery import Celery
from celery.signals import worker_process_init
from marker.convert import convert_single_pdf
from marker.models import load_all_models

app = Celery("text_extract", broker="redis://redis:6379/0", backend="redis://redis:6379/1")
model_lst = None


@worker_process_init.connect
def load_models(**kwargs):
    global model_lst
    model_lst = load_all_models()


@app.task(bind=True)
def ocr_task(self, pdf_path):
    self.update_state(state="PROGRESS", meta={"status": "Extracting text from PDF"})
    text, images, meta = convert_single_pdf(pdf_path, model_lst)
    return text
