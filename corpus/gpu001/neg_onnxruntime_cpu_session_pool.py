# silent: the parent's session runs on the CPU provider only, so CUDA is untouched when the workers fork and open their own CUDA sessions.
from multiprocessing import Pool

import numpy as np
import onnxruntime as ort


def embed(batch):
    gpu_session = ort.InferenceSession("encoder.onnx", providers=["CUDAExecutionProvider"])
    name = gpu_session.get_inputs()[0].name
    return gpu_session.run(None, {name: batch})[0]


def main(batches):
    checker = ort.InferenceSession("encoder.onnx", providers=["CPUExecutionProvider"])
    print("inputs:", [i.name for i in checker.get_inputs()])
    with Pool(2) as pool:
        vectors = pool.map(embed, batches)
    print(np.concatenate(vectors).shape)


if __name__ == "__main__":
    main([np.random.rand(8, 128).astype(np.float32) for _ in range(4)])
