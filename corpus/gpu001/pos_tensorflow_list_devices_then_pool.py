# hazard: tf.config.list_physical_devices("GPU") initialises the GPUs in the parent; the forked pool workers hang at their first GPU op.
from multiprocessing import Pool

import tensorflow as tf


def normalise(values):
    if not tf.config.list_logical_devices("GPU"):
        raise RuntimeError("worker sees no GPU")
    t = tf.constant(values, dtype=tf.float32)
    return (t / tf.reduce_max(t)).numpy().tolist()


def main(rows):
    gpus = tf.config.list_physical_devices("GPU")
    print(f"{len(gpus)} GPU(s) found")
    with Pool(2) as pool:  # expect: GPU001
        print(pool.map(normalise, rows))


if __name__ == "__main__":
    main([[1.0, 2.0, 4.0], [3.0, 6.0, 9.0]])
