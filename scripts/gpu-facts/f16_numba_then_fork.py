import numpy as np, common
from numba import cuda
d = cuda.to_device(np.zeros(4))
print("numba parent ok; child:", common.fork_child(lambda: cuda.to_device(np.ones(3)).copy_to_host().sum()))
