"""A caption service whose model is moved to the GPU at import; gunicorn.conf.py preloads the
app in the master, so the request workers are forked after CUDA was initialised."""
import torch
from flask import Flask, jsonify, request

app = Flask(__name__)
captioner = torch.nn.Linear(512, 64).to("cuda")


@app.post("/caption")  # expect: GPU001
def caption():
    features = torch.tensor(request.json["features"], device="cuda")
    with torch.no_grad():
        return jsonify(tokens=captioner(features).argmax(-1).tolist())
