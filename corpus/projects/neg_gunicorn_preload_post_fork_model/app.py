"""Preloaded like the positive case, but the model is built in gunicorn's post_fork hook, which
runs in each worker after the fork: the master never touches CUDA."""
import torch
from flask import Flask, jsonify, request

app = Flask(__name__)
captioner = None


def load_captioner():
    global captioner
    captioner = torch.nn.Linear(512, 64).to("cuda").eval()


@app.post("/caption")
def caption():
    features = torch.tensor(request.json["features"], device="cuda")
    with torch.no_grad():
        return jsonify(tokens=captioner(features).argmax(-1).tolist())
