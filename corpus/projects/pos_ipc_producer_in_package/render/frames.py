import torch


def render_frames(queue, count):
    for index in range(count):
        frame = torch.rand(3, 256, 256, device="cuda") * index
        queue.put((index, frame))  # expect: GPU011
