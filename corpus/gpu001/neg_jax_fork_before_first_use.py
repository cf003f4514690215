# silent: the fork happens before any JAX call touches a device; parent and child each start their own backend afterwards.
import os

import jax
import jax.numpy as jnp


def report(tag):
    x = jnp.arange(8.0)
    print(tag, jax.devices(), float((x * x).sum()))


def main():
    pid = os.fork()
    if pid == 0:
        report("child")
        os._exit(0)
    os.waitpid(pid, 0)
    report("parent")


if __name__ == "__main__":
    main()
