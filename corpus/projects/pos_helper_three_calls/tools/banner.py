from tools.gpuinfo import device_name


def banner():
    return f"running on {device_name()}"
