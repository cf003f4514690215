# silent: sentence-transformers' start_multi_process_pool uses a spawn context, so encoding after loading on CUDA is safe.
from sentence_transformers import SentenceTransformer


def load_corpus(path):
    with open(path, encoding="utf-8") as fh:
        return [line.strip() for line in fh if line.strip()]


def main():
    model = SentenceTransformer("all-MiniLM-L6-v2", device="cuda")
    sentences = load_corpus("corpus.txt")
    pool = model.start_multi_process_pool()
    try:
        embeddings = model.encode_multi_process(sentences, pool, batch_size=128)
    finally:
        model.stop_multi_process_pool(pool)
    print(embeddings.shape)


if __name__ == "__main__":
    main()
