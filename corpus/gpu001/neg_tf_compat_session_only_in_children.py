# silent: the parent only forks; each forked worker opens its own compat.v1 session, so no GPU device existed before the fork.
from multiprocessing import Pool

import tensorflow as tf


def evaluate(value):
    with tf.compat.v1.Session() as sess:
        return sess.run(tf.square(tf.constant(value)))


def main(values):
    with Pool(2) as pool:
        print(pool.map(evaluate, values))


if __name__ == "__main__":
    main([1.0, 2.0, 3.0])
