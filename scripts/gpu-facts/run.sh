#!/bin/bash
# Checks, on a GPU host with PyTorch (and optionally CuPy, JAX, Numba, Triton), the CUDA facts the
# library tables rely on: which calls initialise the driver before a fork, what a late
# CUDA_VISIBLE_DEVICES write does, what a spawned child without a main guard does. Each script
# prints one outcome; a script that hangs is stopped after 90 s (rc 124). Not run by CI (no GPU).
cd "$(dirname "$0")"
for f in [fgh][0-9]*.py; do
  echo "=== $f"
  timeout 90 python3 -W ignore "$f" 2>&1 | grep -v "^\s*$" | tail -6
  echo "--- rc ${PIPESTATUS[0]}"
done
