"""The fallback chain resamples on the CPU; only the training loop uses the GPU."""
import torch
from torch.utils.data import DataLoader

from audio.clips import Clips

model = torch.nn.Linear(8, 8).cuda()
loader = DataLoader(Clips(["a.wav", "b.wav"]), batch_size=2, num_workers=2)
for batch in loader:
    model(batch.cuda())
