# hazard: the skip decorator's argument queries CUDA when the class is defined, which poisons the processes the test later forks.
import multiprocessing
import unittest

import torch


def allreduce_smoke(rank):
    torch.cuda.set_device(rank)
    torch.ones(4, device="cuda").sum().item()


@unittest.skipIf(not torch.cuda.is_available(), "needs a GPU")
class CollectiveSmokeTest(unittest.TestCase):
    def test_two_workers(self):
        procs = [multiprocessing.Process(target=allreduce_smoke, args=(r,)) for r in range(2)]
        for p in procs:
            p.start()  # expect: GPU001
        for p in procs:
            p.join()
            self.assertEqual(p.exitcode, 0)


if __name__ == "__main__":
    unittest.main()
