import multiprocessing as mp

import tensorflow as tf


class Doubler(mp.Process):
    def __init__(self, worker_id):
        super().__init__()
        self.worker_id = worker_id

    def run(self):
        graph = tf.Graph()
        with graph.as_default():
            x = tf.placeholder(tf.float32, shape=[])
            y = x * 2
            with tf.Session() as sess:
                print(self.worker_id, sess.run(y, feed_dict={x: 21.0}))


graph = tf.Graph()
with graph.as_default():
    x = tf.placeholder(tf.float32, shape=[])
    y = x * 2
    sess = tf.Session()
    print("master", sess.run(y, feed_dict={x: 5.0}))

workers = [Doubler(i) for i in range(2)]
for w in workers:
    w.start()
for w in workers:
    w.join()
