"""requires-python >= 3.14: the default start method on Linux is forkserver, whose server imports
this script before forking workers; the pool below sits in the script body, so the server's import
tries to create it again and fails. Under fork (3.13 and older) the same script ran."""
import multiprocessing as mp

from model import score

batches = [[1.0, 2.0], [3.0], [4.0, 5.0, 6.0]]
with mp.Pool(3) as pool:  # expect: GPU004
    print(pool.map(score, batches))
