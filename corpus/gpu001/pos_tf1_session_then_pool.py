# hazard: a TensorFlow 1 session made in the parent creates the GPU devices; the forked workers hang when they open their own session.
from multiprocessing import Pool

import tensorflow as tf


def evaluate(value):
    with tf.Session() as sess:
        return sess.run(tf.square(tf.constant(value)))


def main(values):
    with tf.Session() as sess:
        print("parent check:", sess.run(tf.constant(1.0)))
    with Pool(2) as pool:  # expect: GPU001
        print(pool.map(evaluate, values))


if __name__ == "__main__":
    main([1.0, 2.0, 3.0])
