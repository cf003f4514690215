import torch, torch.multiprocessing as tmp, multiprocessing as mp
def child(t, q):
    q.put(t.sum().item())
def rank(r, t):
    assert t.sum().item() == 10
if __name__ == "__main__":
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    t = torch.ones(10, device="cuda")
    p = ctx.Process(target=child, args=(t, q)); p.start()
    print("Process(args=(cuda tensor,)): child read", q.get(timeout=60)); p.join()
    tmp.spawn(rank, args=(t,), nprocs=1)
    print("torch.multiprocessing.spawn(args=(cuda tensor,)): exit ok")
