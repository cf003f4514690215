# silent: a bound method of an instance of a module-level class pickles by reference to the instance, whose attributes (a path, a size) all pickle
import torch
import torch.multiprocessing as mp


class Embedder:
    def __init__(self, checkpoint, dim):
        self.checkpoint = checkpoint
        self.dim = dim

    def embed(self, rank):
        torch.cuda.set_device(rank)
        layer = torch.nn.Linear(self.dim, self.dim).cuda()
        layer.load_state_dict(torch.load(self.checkpoint, map_location=f"cuda:{rank}"))


if __name__ == "__main__":
    embedder = Embedder("layer.pt", 128)
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=embedder.embed, args=(r,)) for r in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
