# hazard: ctranslate2.Translator(device="auto") loads onto CUDA when a GPU is present; the forked child then translates on the GPU.
import os

import ctranslate2


def serve(translator, lines):
    for result in translator.translate_batch([line.split() for line in lines]):
        print(" ".join(result.hypotheses[0]))


def main():
    translator = ctranslate2.Translator("ende_ct2", device="auto")
    pid = os.fork()  # expect: GPU001
    if pid == 0:
        serve(translator, ["▁Hello ▁world"])
        os._exit(0)
    os.waitpid(pid, 0)


if __name__ == "__main__":
    main()
