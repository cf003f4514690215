# silent: the parent never switches spaCy to the GPU; the workers are forked first and each calls prefer_gpu itself.
from multiprocessing import Pool

import spacy


def tag(texts):
    spacy.prefer_gpu()
    nlp = spacy.blank("en")
    return [len(doc) for doc in nlp.pipe(texts)]


def main(batches):
    with Pool(2) as pool:
        print(pool.map(tag, batches))


if __name__ == "__main__":
    main([["a short text", "another one"], ["third text here"]])
