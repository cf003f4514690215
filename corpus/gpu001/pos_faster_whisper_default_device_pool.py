# hazard: WhisperModel's default device="auto" loads onto CUDA when a GPU is present, before the pool forks workers that transcribe with it.
import multiprocessing as mp

from faster_whisper import WhisperModel

model = None


def transcribe(path):
    segments, _ = model.transcribe(path, beam_size=5)
    return " ".join(seg.text for seg in segments)


def main(paths):
    global model
    model = WhisperModel("small", compute_type="float16")
    with mp.Pool(processes=3) as pool:  # expect: GPU001
        for text in pool.imap(transcribe, paths):
            print(text)


if __name__ == "__main__":
    main(["a.wav", "b.wav", "c.wav"])
