import spacy


def read_lines(path):
    with open(path, encoding="utf-8") as fh:
        return [line.strip() for line in fh if line.strip()]


def main():
    spacy.prefer_gpu()
    nlp = spacy.load("en_core_web_sm")
    texts = read_lines("corpus.txt")
    with open("tags.tsv", "w", encoding="utf-8") as out:
        for doc in nlp.pipe(texts, n_process=4, batch_size=500):
            out.write("\t".join(f"{tok.text}/{tok.tag_}" for tok in doc) + "\n")


if __name__ == "__main__":
    main()
