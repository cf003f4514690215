"""requires-python >= 3.14: the default context is forkserver, whose server imports this module
afresh; CUDA is initialised only under the main guard, so the workers start clean."""
import multiprocessing as mp

from model import load, score

if __name__ == "__main__":
    net = load()
    with mp.Pool(4) as pool:
        print(pool.map(score, [[1.0], [2.0]]))
