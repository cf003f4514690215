import torch


class CudaBackend:
    def set_device(self, index):
        torch.cuda.set_device(index)
