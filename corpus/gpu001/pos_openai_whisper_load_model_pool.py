# hazard: whisper.load_model() puts the model on CUDA when it is available, before the pool forks workers that run it.
from multiprocessing import Pool

import whisper

MODEL = None


def transcribe(path):
    return MODEL.transcribe(path)["text"]


if __name__ == "__main__":
    MODEL = whisper.load_model("base")
    with Pool(2) as pool:  # expect: GPU001
        for text in pool.map(transcribe, ["one.mp3", "two.mp3"]):
            print(text)
