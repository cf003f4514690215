from flask import Flask, jsonify, request

from model import SamMLBackend

app = Flask(__name__)
backend = SamMLBackend()


@app.route("/predict", methods=["POST"])
def predict():
    body = request.get_json()
    mask = backend.predict(body["image"], body["points"])
    return jsonify(mask=mask.tolist())
