"""The child does the only CUDA work: nothing initialised CUDA before the fork."""
import os
import sys

from embedder.warmup import encode

pid = os.fork()
if pid == 0:
    print(encode(sys.argv[1]))
    os._exit(0)
os.waitpid(pid, 0)
