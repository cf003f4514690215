# silent: ctranslate2's default device is the CPU, so the parent's translator leaves CUDA untouched and the child may load one on the GPU.
import os

import ctranslate2


def main():
    cpu_translator = ctranslate2.Translator("ende_ct2")
    print(cpu_translator.translate_batch([["▁Hi"]])[0].hypotheses[0])
    pid = os.fork()
    if pid == 0:
        gpu_translator = ctranslate2.Translator("ende_ct2", device="cuda")
        print(gpu_translator.translate_batch([["▁Bye"]])[0].hypotheses[0])
        os._exit(0)
    os.waitpid(pid, 0)


if __name__ == "__main__":
    main()
