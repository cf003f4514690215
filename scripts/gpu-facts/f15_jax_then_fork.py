import warnings, jax, jax.numpy as jnp, common
warnings.simplefilter("always")
print("jax devices", jax.devices())
import io, contextlib
print("child:", common.fork_child(lambda: float(jnp.ones(3).sum())))
