import multiprocessing as mp

import numpy as np
import tensorflow as tf


def run_session(gpu):
    with tf.Graph().as_default():
        with tf.device("/gpu:" + gpu):
            a = tf.constant(np.random.rand(512, 512), dtype=tf.float32)
            b = tf.matmul(a, a)
        with tf.Session() as sess:
            print(gpu, sess.run(tf.reduce_sum(b)))


if __name__ == "__main__":
    run_session("0")
    p = mp.Process(target=run_session, args=("0",))
    p.start()
    p.join()
