# hazard: a classmethod caches the model in a class attribute on cuda:0; each spawned worker chose its own GPU and feeds it tensors from there
import torch
import torch.multiprocessing as mp


class Ranker:
    net = None

    @classmethod
    def shared(cls):
        if cls.net is None:
            cls.net = torch.nn.Linear(32, 1).to("cuda:0")  # expect: GPU002
        return cls.net


def score(rank):
    torch.cuda.set_device(rank)
    batch = torch.randn(8, 32, device=f"cuda:{rank}")
    return Ranker.shared()(batch)


if __name__ == "__main__":
    mp.spawn(score, nprocs=torch.cuda.device_count())
