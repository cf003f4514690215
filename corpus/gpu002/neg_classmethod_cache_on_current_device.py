# silent: the classmethod's lazy cache places the model on the current device, which each worker set first (HAZARDS.md GPU002, lazy loader after set_device)
import torch
import torch.multiprocessing as mp


class Ranker:
    net = None

    @classmethod
    def shared(cls):
        if cls.net is None:
            cls.net = torch.nn.Linear(32, 1).cuda()
        return cls.net


def score(rank):
    torch.cuda.set_device(rank)
    batch = torch.randn(8, 32).cuda()
    return Ranker.shared()(batch)


if __name__ == "__main__":
    mp.spawn(score, nprocs=torch.cuda.device_count())
