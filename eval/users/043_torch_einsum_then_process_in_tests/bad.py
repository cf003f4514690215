import torch
import torch.multiprocessing as mp


def contract():
    x = torch.ones((2, 50, 10))
    return torch.einsum("ijl,ikl->ijk", x, x)


def test_einsum_in_child():
    contract()
    p = mp.Process(target=contract)
    p.start()
    p.join()
    assert p.exitcode == 0


if __name__ == "__main__":
    test_einsum_in_child()
