# hazard: jax.devices() starts JAX's CUDA backend in the parent; the child of os.fork() aborts at its first jnp computation.
import os

import jax
import jax.numpy as jnp


def child_work():
    total = jnp.ones(3).sum()
    print("child total:", float(total))


def main():
    print("visible devices:", jax.devices())
    pid = os.fork()  # expect: GPU001
    if pid == 0:
        child_work()
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    print("child exited with", status)


if __name__ == "__main__":
    main()
