#!/bin/sh
torchrun --nnodes=2 --node_rank="$NODE_RANK" --nproc_per_node=8 \
    --master_addr="$HEAD_NODE" train.py
