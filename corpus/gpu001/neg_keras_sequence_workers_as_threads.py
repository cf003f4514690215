# silent: fork before init does not apply, nothing is forked: without use_multiprocessing, Keras runs the Sequence's workers as threads of this process, where the GPU work of __getitem__ is fine
import numpy as np
import tensorflow as tf
from tensorflow import keras


class NoisyBatches(keras.utils.Sequence):
    def __init__(self, features, targets, batch_size):
        self.features = features
        self.targets = targets
        self.batch_size = batch_size

    def __len__(self):
        return len(self.features) // self.batch_size

    def __getitem__(self, index):
        start = index * self.batch_size
        noise = tf.random.normal((self.batch_size, 8))
        return self.features[start : start + self.batch_size] + noise, self.targets[start : start + self.batch_size]


def main():
    temperature = tf.Variable(0.5)
    model = keras.Sequential([keras.layers.Dense(16, activation="relu"), keras.layers.Dense(1)])
    model.compile(optimizer="adam", loss="mse")
    batches = NoisyBatches(np.zeros((512, 8), "float32"), np.zeros((512, 1), "float32"), 32)
    model.fit(batches, epochs=2, workers=4)
    print(float(temperature.numpy()))


if __name__ == "__main__":
    main()
