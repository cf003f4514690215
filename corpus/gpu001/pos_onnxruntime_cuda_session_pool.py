# hazard: an InferenceSession with the CUDA provider creates a context in the parent; the pool's workers fork from it and run the session on the GPU.
from multiprocessing import Pool

import numpy as np
import onnxruntime as ort

session = None


def predict(batch):
    inputs = {session.get_inputs()[0].name: batch}
    return session.run(None, inputs)[0].argmax(axis=1)


def main(batches):
    global session
    session = ort.InferenceSession(
        "classifier.onnx",
        providers=["CUDAExecutionProvider", "CPUExecutionProvider"],
    )
    with Pool(4) as pool:  # expect: GPU001
        labels = pool.map(predict, batches)
    print(np.concatenate(labels)[:10])


if __name__ == "__main__":
    main([np.random.rand(32, 3, 224, 224).astype(np.float32) for _ in range(8)])
