from concurrent import futures

import flair  # noqa: F401
from flair.embeddings import FlairEmbeddings


def describe_lm():
    return str(FlairEmbeddings("news-forward-fast"))


with futures.ProcessPoolExecutor(max_workers=1) as executor:
    jobs = [executor.submit(describe_lm) for _ in range(2)]
    for job in futures.as_completed(jobs):
        print(job.result())
