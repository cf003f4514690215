# silent: a test launched by the suite's harness, on the machine that runs the tests
import pytest
import torch

from workers import all_reduce_ones


@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="two GPUs")
def test_all_reduce_sums_every_rank():
    assert all_reduce_ones().sum().item() > 0
