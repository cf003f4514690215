"""`jobs` has no __init__.py; importing jobs.gpu (CUDA at import) before the pool, whose task uses the model."""
from multiprocessing import Pool

import jobs.gpu


def predict(x):
    return jobs.gpu.model(x)


def main(inputs):
    with Pool(8) as pool:  # expect: GPU001
        return pool.map(predict, inputs)


if __name__ == "__main__":
    main([])
