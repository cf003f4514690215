# hazard: a helper moves each batch with .cuda() while the worker's model sits on its own GPU
import torch
import torch.multiprocessing as mp


def to_gpu(batch):
    return batch.cuda()  # expect: GPU010


def score(worker_id, shards):
    model = torch.nn.Linear(16, 1).to(f"cuda:{worker_id}")
    for shard in shards:
        print(model(to_gpu(torch.rand(4, 16))))


if __name__ == "__main__":
    mp.spawn(score, args=([1, 2],), nprocs=2)
