import cupy


def device():
    return cupy.cuda.Device(0)


def run(values):
    return float(cupy.asarray(values).sum())
