import torch


def add_embeddings(rows, model):
    def embed(batch):
        features = torch.tensor(batch["features"], device="cuda")
        return {"embedding": model(features).tolist()}

    return rows.map(embed, batched=True, num_proc=4)  # expect: GPU001
