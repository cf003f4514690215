import cupy

DEVICE = cupy.cuda.Device(0)
session = cupy.zeros((4, 4))


def run(values):
    return float(cupy.asarray(values).sum())
