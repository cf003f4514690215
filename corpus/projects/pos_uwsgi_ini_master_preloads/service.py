"""A ranking service that puts its scorer on the GPU while the module is imported; deploy.ini
runs it under uWSGI with a master and no lazy-apps, so uWSGI imports it once and forks the four
workers from that process, each inheriting the initialised CUDA state."""
import torch
from flask import Flask, jsonify, request

app = Flask(__name__)
scorer = torch.nn.Linear(128, 1).cuda()


@app.route("/rank", methods=["POST"])  # expect: GPU001
def rank():
    items = torch.tensor(request.json["items"], device="cuda")
    with torch.no_grad():
        return jsonify(order=scorer(items).squeeze(-1).argsort(descending=True).tolist())
