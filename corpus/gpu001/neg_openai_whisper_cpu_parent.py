# silent: the parent loads its model with device="cpu"; each forked worker loads its own model onto CUDA from a clean state.
from multiprocessing import Pool

import whisper


def transcribe(path):
    model = whisper.load_model("base")
    return model.transcribe(path)["text"]


if __name__ == "__main__":
    detector = whisper.load_model("tiny", device="cpu")
    print("dims:", detector.dims)
    with Pool(2) as pool:
        print(pool.map(transcribe, ["one.mp3", "two.mp3"]))
