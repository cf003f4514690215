import ctypes


class Context:
    @staticmethod
    def open():
        return ctypes.CDLL("libcuda.so")
