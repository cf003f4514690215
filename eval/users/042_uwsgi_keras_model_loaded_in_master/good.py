import numpy as np
from flask import Flask, jsonify, request
from tensorflow import keras
from uwsgidecorators import postfork

app = Flask(__name__)
model = None


@postfork
def load_model():
    global model
    model = keras.models.load_model("models/keras-weights.hdf5")


@app.route("/predict", methods=["POST"])
def predict():
    pixels = np.asarray(request.get_json()["pixels"], dtype=np.float32).reshape(1, 224, 224, 3)
    scores = model.predict(pixels)
    return jsonify(label=int(scores.argmax()))
