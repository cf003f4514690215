"""The handlers the gunicorn workers run."""
import torch
from flask import Flask, jsonify, request

from .models import ranker

app = Flask(__name__)


@app.post("/rank")
def rank():
    x = torch.tensor(request.json["features"], device="cuda")
    return jsonify(score=float(ranker()(x).sum()))
