# hazard: collate_fn runs in forked workers and pads the batch on the GPU; the parent already holds a CUDA context.
import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def pad_to_device(batch):
    tokens = [torch.as_tensor(ids) for ids, _ in batch]
    labels = torch.tensor([label for _, label in batch])
    padded = pad_sequence(tokens, batch_first=True, padding_value=0)
    return padded.to(DEVICE), labels.to(DEVICE)


class Classifier(torch.nn.Module):
    def __init__(self, vocab=30000, dim=128):
        super().__init__()
        self.emb = torch.nn.EmbeddingBag(vocab, dim)
        self.head = torch.nn.Linear(dim, 2)

    def forward(self, ids):
        return self.head(self.emb(ids))


def main(samples):
    model = Classifier().to(DEVICE)
    loader = DataLoader(  # expect: GPU001
        samples,
        batch_size=16,
        num_workers=2,
        collate_fn=pad_to_device,
    )
    for ids, labels in loader:
        loss = torch.nn.functional.cross_entropy(model(ids), labels)
        loss.backward()


if __name__ == "__main__":
    main([([1, 2, 3], 0), ([4, 5], 1)] * 64)
