import multiprocessing

from celery import Celery
from marker.convert import convert_single_pdf
from marker.models import load_all_models

multiprocessing.set_start_method("spawn", force=True)

app = Celery("text_extract", broker="redis://redis:6379/0", backend="redis://redis:6379/1")
model_lst = load_all_models()


@app.task(bind=True)
def ocr_task(self, pdf_path):
    self.update_state(state="PROGRESS", meta={"status": "Extracting text from PDF"})
    text, images, meta = convert_single_pdf(pdf_path, model_lst)
    return text
