import torch, multiprocessing as mp
def producer(conn):
    conn.send(torch.ones(1000, device="cuda"))  # returns at once
if __name__ == "__main__":
    ctx = mp.get_context("spawn")
    a, b = ctx.Pipe()
    p = ctx.Process(target=producer, args=(b,)); p.start(); p.join()
    try:
        print("got", a.recv().sum().item())
    except Exception as e:
        print("raised", type(e).__name__, str(e)[:200])
