"""CUDA is initialised at import of app.engine, but the forked workers only tokenise on the CPU."""
import multiprocessing as mp

from app import engine
from app.text import tokenize

if __name__ == "__main__":
    lines = open("corpus.txt").read().splitlines()
    with mp.Pool(4) as pool:
        tokens = pool.map(tokenize, lines)
    print(engine.encoder)
