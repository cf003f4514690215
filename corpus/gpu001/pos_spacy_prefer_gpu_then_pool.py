# hazard: spacy.prefer_gpu() makes CuPy current on GPU 0 in the parent (a context); the forked workers switch to the GPU again and fail.
from multiprocessing import Pool

import spacy


def tag(texts):
    spacy.require_gpu()
    nlp = spacy.blank("en")
    return [len(doc) for doc in nlp.pipe(texts)]


def main(batches):
    on_gpu = spacy.prefer_gpu()
    print("parent on GPU:", on_gpu)
    with Pool(2) as pool:  # expect: GPU001
        print(pool.map(tag, batches))


if __name__ == "__main__":
    main([["a short text", "another one"], ["third text here"]])
