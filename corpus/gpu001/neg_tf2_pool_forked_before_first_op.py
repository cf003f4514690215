# silent: the pool forks its workers at construction, before the parent's first eager op; each worker starts its own TensorFlow runtime.
from multiprocessing import Pool

import numpy as np
import tensorflow as tf


def project(rows):
    basis = tf.random.normal([3, 2], seed=1)
    return tf.matmul(np.asarray(rows, dtype=np.float32), basis).numpy().tolist()


def main(batches):
    with Pool(2) as pool:
        weights = tf.Variable(tf.random.normal([3, 3]))
        print("parent weights on", weights.device)
        print(pool.map(project, batches))


if __name__ == "__main__":
    main([[[1.0, 2.0, 3.0]], [[4.0, 5.0, 6.0]]])
