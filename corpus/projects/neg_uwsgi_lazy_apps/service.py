"""The same ranking service with lazy-apps in uwsgi.ini: every uWSGI worker imports the module
(and initialises CUDA) itself after the fork, so no worker inherits a CUDA context."""
import torch
from flask import Flask, jsonify, request

app = Flask(__name__)
scorer = torch.nn.Linear(128, 1).cuda()


@app.route("/rank", methods=["POST"])
def rank():
    items = torch.tensor(request.json["items"], device="cuda")
    with torch.no_grad():
        return jsonify(order=scorer(items).squeeze(-1).argsort(descending=True).tolist())
