"""flair 0.6 asks torch whether a GPU is present when it is imported: the driver is initialised in
the parent, and the executor's forked workers then fail to load their embeddings onto CUDA."""
from concurrent.futures import ProcessPoolExecutor

from flair.data import Sentence
from flair.embeddings import FlairEmbeddings


def embed_review(text):
    embedding = FlairEmbeddings("news-backward-fast")
    sentence = Sentence(text)
    embedding.embed(sentence)
    return len(sentence)


def main(reviews):
    with ProcessPoolExecutor(max_workers=2) as pool:  # expect: GPU001
        return list(pool.map(embed_review, reviews))


if __name__ == "__main__":
    print(main(["great value", "arrived broken"]))
