"""An installed src-layout package imported by a script: its import initialises CUDA, then os.fork."""
import os
import sys

from embedder.warmup import encode

pid = os.fork()  # expect: GPU001
if pid == 0:
    print(encode(sys.argv[1]))
    os._exit(0)
os.waitpid(pid, 0)
