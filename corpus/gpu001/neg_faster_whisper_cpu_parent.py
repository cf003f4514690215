# silent: the parent's model is loaded with device="cpu", so no context exists when the workers fork and load their own CUDA models.
import multiprocessing as mp

from faster_whisper import WhisperModel


def transcribe(path):
    model = WhisperModel("small", device="cuda", compute_type="float16")
    segments, _ = model.transcribe(path)
    return " ".join(seg.text for seg in segments)


def main(paths):
    lang_model = WhisperModel("tiny", device="cpu", compute_type="int8")
    _, info = lang_model.transcribe(paths[0])
    print("language:", info.language)
    with mp.Pool(processes=2) as pool:
        print(pool.map(transcribe, paths))


if __name__ == "__main__":
    main(["a.wav", "b.wav"])
