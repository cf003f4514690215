#!/bin/sh
# Trains on every GPU of this machine.
torchrun --nproc_per_node="$(nvidia-smi -L | wc -l)" \
    --master_port=29511 \
    train.py "$@"
