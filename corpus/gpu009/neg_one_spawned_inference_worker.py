# ok: the parent starts one inference process; a single load without map_location piles nothing up
import multiprocessing as mp

import torch


def answer(inbox, outbox):
    scorer = torch.jit.load("scorer.pt").to("cuda").eval()
    while (batch := inbox.get()) is not None:
        with torch.no_grad():
            outbox.put(scorer(torch.tensor(batch, device="cuda")).cpu().tolist())


if __name__ == "__main__":
    ctx = mp.get_context("spawn")
    inbox, outbox = ctx.Queue(), ctx.Queue()
    worker = ctx.Process(target=answer, args=(inbox, outbox))
    worker.start()
    inbox.put([[0.5, 1.5]])
    print(outbox.get())
    inbox.put(None)
    worker.join()
