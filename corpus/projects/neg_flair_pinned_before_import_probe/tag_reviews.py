"""flair 0.4.0 leaves CUDA alone at import (it asks only when a model is loaded): the parent
stays clean, and each forked worker loads its embeddings onto the GPU by itself."""
from concurrent.futures import ProcessPoolExecutor

from flair.data import Sentence
from flair.embeddings import FlairEmbeddings


def embed_review(text):
    embedding = FlairEmbeddings("news-backward-fast")
    sentence = Sentence(text)
    embedding.embed(sentence)
    return len(sentence)


def main(reviews):
    with ProcessPoolExecutor(max_workers=2) as pool:
        return list(pool.map(embed_review, reviews))


if __name__ == "__main__":
    print(main(["great value", "arrived broken"]))
