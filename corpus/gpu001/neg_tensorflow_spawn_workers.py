# silent: the parent creates TensorFlow tensors, but the workers are started by spawn and initialise their own runtime.
import multiprocessing as mp

import tensorflow as tf


def square_sum(values):
    t = tf.constant(values, dtype=tf.float32)
    return float(tf.reduce_sum(t * t))


if __name__ == "__main__":
    probe = tf.constant([1.0, 2.0])
    print("parent tensor on", probe.device)
    ctx = mp.get_context("spawn")
    with ctx.Pool(2) as pool:
        print(pool.map(square_sum, [[1.0, 2.0], [3.0, 4.0]]))
