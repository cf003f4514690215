# hazard: the reference model is moved to the GPU first; the Parallel runner made with the multiprocessing backend forks its workers when it is called, and each worker builds GPU tensors in a forked child of that initialised process
import joblib
import torch

reference = torch.nn.Embedding(1000, 32).to("cuda")


def embed(ids):
    table = torch.nn.Embedding(1000, 32).to("cuda")
    return table(torch.tensor(ids, device="cuda")).mean(dim=0).cpu()


if __name__ == "__main__":
    runner = joblib.Parallel(4, "multiprocessing")
    chunks = [[1, 2, 3], [4, 5], [6, 7, 8, 9]]
    vectors = runner(joblib.delayed(embed)(c) for c in chunks)  # expect: GPU001
    print(len(vectors), reference.weight.shape)
