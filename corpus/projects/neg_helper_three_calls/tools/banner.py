from tools.gpuinfo import gpu_count


def banner():
    return f"{gpu_count()} GPUs visible"
