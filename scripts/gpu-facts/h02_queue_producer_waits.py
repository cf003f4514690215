import torch, multiprocessing as mp
def producer(q, done):
    q.put(torch.ones(1000, device="cuda"))
    done.wait()  # alive until the consumer is done
if __name__ == "__main__":
    ctx = mp.get_context("spawn")
    q, done = ctx.Queue(), ctx.Event()
    p = ctx.Process(target=producer, args=(q, done))
    p.start()
    try:
        print("consumer got sum", q.get(timeout=60).sum().item())
    except Exception as e:
        print("consumer raised", type(e).__name__, str(e)[:200])
    done.set(); p.join()
