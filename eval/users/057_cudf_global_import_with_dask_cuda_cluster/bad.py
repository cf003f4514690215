import cudf  # noqa: F401
import rmm
from dask.distributed import Client
from dask_cuda import LocalCUDACluster

if __name__ == "__main__":
    cluster = LocalCUDACluster()
    client = Client(cluster)
    print(client)
    client.run(rmm.reinitialize, pool_allocator=True, managed_memory=False, initial_pool_size=30_000_000_000)
    print("pools initialised")
