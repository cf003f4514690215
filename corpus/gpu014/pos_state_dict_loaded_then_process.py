# hazard: restoring a checkpoint copies each parameter into the host model, and the 20000 x 32 embedding table is copied on the intra-op pool; the scoring process forked afterwards runs the model and waits for threads it does not have.
import multiprocessing as mp

import torch


class Recommender(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.items = torch.nn.Embedding(20000, 32)
        self.score = torch.nn.Linear(32, 1)

    def forward(self, ids):
        return self.score(self.items(ids)).squeeze(-1)


def rank_candidates(model, candidates):
    with torch.no_grad():
        print(model(candidates).topk(5).indices.tolist())


def main(path):
    model = Recommender()
    model.load_state_dict(torch.load(path, map_location="cpu"))
    scorer = mp.Process(target=rank_candidates, args=(model, torch.arange(100)))
    scorer.start()  # expect: GPU014
    scorer.join()


if __name__ == "__main__":
    main("recommender.pt")
