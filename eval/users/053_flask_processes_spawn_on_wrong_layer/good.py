from detectron2.config import get_cfg
from detectron2.engine import DefaultPredictor
from flask import Flask, Response

app = Flask(__name__)
cfg = get_cfg()
cfg.merge_from_file("configs/mask_rcnn_R_50_FPN_3x.yaml")
cfg.MODEL.WEIGHTS = "model_final.pth"
cfg.MODEL.DEVICE = "cuda"


def frames(predictor):
    for frame in open_camera():
        yield render(predictor(frame))


@app.route("/segment_stream")
def segment_stream():
    return Response(frames(DefaultPredictor(cfg)), mimetype="multipart/x-mixed-replace; boundary=frame")


if __name__ == "__main__":
    app.run(host="0.0.0.0", threaded=False, processes=2)
