import multiprocessing
from concurrent import futures

import flair  # noqa: F401
from flair.embeddings import FlairEmbeddings


def describe_lm():
    return str(FlairEmbeddings("news-forward-fast"))


if __name__ == "__main__":
    ctx = multiprocessing.get_context("spawn")
    with futures.ProcessPoolExecutor(max_workers=1, mp_context=ctx) as executor:
        jobs = [executor.submit(describe_lm) for _ in range(2)]
        for job in futures.as_completed(jobs):
            print(job.result())
