# hazard: deleting the model and emptying the cache does not undo CUDA init; the forked evaluator still cannot use the GPU.
import torch
import torch.multiprocessing as mp

checkpoints = ["ckpt_010.pt", "ckpt_020.pt", "ckpt_030.pt"]


def evaluate(path):
    state = torch.load(path, map_location="cuda")
    net = torch.nn.Linear(128, 10).cuda()
    net.load_state_dict(state)
    x = torch.randn(512, 128, device="cuda")
    print(path, net(x).argmax(1).float().mean().item())


model = torch.nn.Linear(128, 10).cuda()
torch.save(model.state_dict(), checkpoints[0])
del model
torch.cuda.empty_cache()

jobs = []
for path in checkpoints:
    job = mp.Process(target=lambda p=path: evaluate(p))
    job.start()  # expect: GPU001
    jobs.append(job)
for job in jobs:
    job.join()
