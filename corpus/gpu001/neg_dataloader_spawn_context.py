# silent: DataLoader(multiprocessing_context="spawn") starts fresh workers, so GPU decoding inside them is not a fork hazard.
import torch
from torch.utils.data import DataLoader, Dataset


class GpuDecoded(Dataset):
    def __init__(self, blobs):
        self.blobs = blobs

    def __len__(self):
        return len(self.blobs)

    def __getitem__(self, idx):
        raw = torch.frombuffer(bytearray(self.blobs[idx]), dtype=torch.uint8)
        decoded = raw.cuda().float().div_(255.0)
        return decoded.cpu()


def main():
    model = torch.nn.Linear(1024, 8).cuda()
    blobs = [bytes(range(256)) * 4 for _ in range(200)]
    loader = DataLoader(
        GpuDecoded(blobs),
        batch_size=20,
        num_workers=2,
        multiprocessing_context="spawn",
        persistent_workers=True,
    )
    for batch in loader:
        print(model(batch.cuda()).shape)


if __name__ == "__main__":
    main()
