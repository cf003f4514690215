# silent: processes come from mp.get_context("spawn"), so children start fresh and may use CUDA after the parent did.
import torch
import torch.multiprocessing as mp


def infer(gpu, shard, results):
    torch.cuda.set_device(gpu)
    net = torch.nn.Conv2d(3, 16, 3).cuda()
    out = net(torch.rand(len(shard), 3, 64, 64, device="cuda"))
    results.put((gpu, out.mean().item()))


def main():
    n_gpus = torch.cuda.device_count()
    reference = torch.ones(1, device="cuda")
    ctx = mp.get_context("spawn")
    results = ctx.Queue()
    procs = [ctx.Process(target=infer, args=(g, list(range(8)), results)) for g in range(n_gpus)]
    for p in procs:
        p.start()
    outputs = [results.get() for _ in procs]
    for p in procs:
        p.join()
    print(reference.item(), sorted(outputs))


if __name__ == "__main__":
    main()
