# silent: the producer puts CUDA tensors and then waits on an event the consumer sets when it is done, so the memory outlives every use (PyTorch's advice for sharing CUDA tensors).
import torch
import torch.multiprocessing as mp


def produce(queue, consumed):
    for step in range(4):
        queue.put(torch.full((1024,), float(step), device="cuda"))
    queue.put(None)
    consumed.wait()


def main():
    ctx = mp.get_context("spawn")
    queue, consumed = ctx.Queue(), ctx.Event()
    producer = ctx.Process(target=produce, args=(queue, consumed))
    producer.start()
    total = 0.0
    while True:
        chunk = queue.get()
        if chunk is None:
            break
        total += chunk.sum().item()
        del chunk
    consumed.set()
    producer.join()
    print(total)


if __name__ == "__main__":
    main()
