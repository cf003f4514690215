import torch, torch.multiprocessing as mp
def producer(q):
    q.put(torch.ones(3, device="cuda"))
    # returns at once: the consumer may read a tensor whose producer is gone
if __name__ == "__main__":
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    p = ctx.Process(target=producer, args=(q,))
    p.start(); p.join()
    try:
        t = q.get(timeout=20)
        print("got", t)
    except Exception as e:
        print("consumer raised", type(e).__name__, str(e)[:200])
