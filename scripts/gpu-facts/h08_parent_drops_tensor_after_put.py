import torch, multiprocessing as mp
def consumer(q, out):
    out.put(q.get().sum().item())
if __name__ == "__main__":
    ctx = mp.get_context("spawn")
    q, out = ctx.Queue(), ctx.Queue()
    p = ctx.Process(target=consumer, args=(q, out)); p.start()
    t = torch.ones(10, device="cuda")
    q.put(t)
    del t  # the sender stays alive; torch keeps the memory for the consumer
    print("consumer read", out.get(timeout=60)); p.join()
