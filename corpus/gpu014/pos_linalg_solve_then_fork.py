# hazard: a LAPACK-backed solve uses the BLAS/OpenMP threads whatever the size; after os.fork the child's inverse waits for threads that only the parent has.
import os

import torch

system = torch.rand(64, 64) + 64 * torch.eye(64)
rhs = torch.rand(64, 1)
solution = torch.linalg.solve(system, rhs)

child = os.fork()  # expect: GPU014
if child == 0:
    local = torch.rand(32, 32) + 32 * torch.eye(32)
    print(torch.linalg.inv(local).trace().item())
    os._exit(0)
os.waitpid(child, 0)
print(solution.norm().item())
