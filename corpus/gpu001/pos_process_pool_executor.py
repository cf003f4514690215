# hazard: ProcessPoolExecutor forks its workers from a parent that holds a CUDA context; submitted jobs use CUDA.
import concurrent.futures as cf
import os

import torch


def resize_on_gpu(batch_id, size):
    frames = torch.rand(16, 3, 720, 1280, device="cuda")
    out = torch.nn.functional.interpolate(frames, size=size, mode="bilinear")
    return batch_id, tuple(out.shape)


class VideoJob:
    def __init__(self, n_batches):
        self.n_batches = n_batches
        self.device = torch.device("cuda:0")
        self.reference = torch.ones(3, 224, 224, device=self.device)

    def run(self):
        results = {}
        with cf.ProcessPoolExecutor(max_workers=os.cpu_count() or 2) as ex:  # expect: GPU001
            futures = [ex.submit(resize_on_gpu, b, (224, 224)) for b in range(self.n_batches)]
            for fut in cf.as_completed(futures):
                batch_id, shape = fut.result()
                results[batch_id] = shape
        return results


if __name__ == "__main__":
    job = VideoJob(n_batches=8)
    print(job.run())
