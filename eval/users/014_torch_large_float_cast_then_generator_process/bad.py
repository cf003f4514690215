import multiprocessing

import torch


def split_loader():
    for _ in range(20):
        yield torch.zeros(10, 170, 70)


def _serve(make_gen, conn):
    gen = make_gen()
    while conn.recv():
        try:
            conn.send(next(gen))
        except StopIteration:
            conn.send(StopIteration)
            return


def background(make_gen):
    parent_conn, child_conn = multiprocessing.Pipe()
    proc = multiprocessing.Process(target=_serve, args=(make_gen, child_conn), daemon=True)
    proc.start()
    while True:
        parent_conn.send(True)
        item = parent_conn.recv()
        if item is StopIteration:
            break
        yield item


if __name__ == "__main__":
    canvas = torch.zeros(152 * 4, 168 * 4).float()
    for batch in background(split_loader):
        print(batch.shape, canvas.shape)
