import torch
import torch.multiprocessing as mp


def refine(x0, A, b, steps=100):
    x = x0.clone().requires_grad_(True)
    opt = torch.optim.Adam([x], lr=0.01)
    for _ in range(steps):
        opt.zero_grad()
        loss = ((A @ x - b) ** 2).mean()
        loss.backward()
        opt.step()
    exact = torch.linalg.solve(A, b)
    return (x.detach() - exact).norm().item()


def run(ndim=1000, n_init=20):
    pool = mp.Pool(n_init)
    b = torch.randn(ndim, 1)
    A = torch.randn(ndim, ndim)
    A = A @ A.t() + ndim * torch.eye(ndim)
    chol = torch.linalg.cholesky(A)
    x0 = torch.cholesky_solve(torch.randn(ndim, n_init), chol)
    jobs = [pool.apply_async(refine, args=(x0[:, i:i + 1], A, b)) for i in range(n_init)]
    pool.close()
    return [j.get() for j in jobs]


if __name__ == "__main__":
    print(run())
