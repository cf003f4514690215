# silent: a JAX array pickles as a host copy, so the producer may return right after put; the receiver builds its own array
import jax.numpy as jnp
import multiprocessing as mp


def produce(out):
    scores = jnp.linspace(0.0, 1.0, 1024) ** 2
    out.put(scores)


if __name__ == "__main__":
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    worker = ctx.Process(target=produce, args=(out,))
    worker.start()
    print(float(out.get().sum()))
    worker.join()
