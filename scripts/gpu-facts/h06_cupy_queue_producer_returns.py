import multiprocessing as mp
def producer(q):
    import cupy
    q.put(cupy.ones(10))  # returns at once
if __name__ == "__main__":
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    p = ctx.Process(target=producer, args=(q,)); p.start(); p.join()
    try:
        a = q.get(timeout=60)
        print("got", type(a).__module__, float(a.sum()))
    except Exception as e:
        print("raised", type(e).__name__, str(e)[:200])
