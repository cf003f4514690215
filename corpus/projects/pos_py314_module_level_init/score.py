"""requires-python >= 3.14: forkserver, but the server imports this module first, and its top
level initialises CUDA: every worker forked from the server inherits it."""
import multiprocessing as mp

from model import load, score

net = load()

if __name__ == "__main__":
    with mp.Pool(4) as pool:  # expect: GPU001
        print(pool.map(score, [[1.0], [2.0]]))
