import ctypes


class Basics:
    def __init__(self):
        self.lib = ctypes.CDLL("libhorovod.so")

    def rank(self):
        return self.lib.horovod_rank()

    def local_rank(self):
        return self.lib.horovod_local_rank()
