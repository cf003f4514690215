# hazard: require_gpu made thinc compute through CuPy on the GPU in the parent; pipe with several processes then forks workers that run the pipeline's model there, and a forked child of an initialised parent cannot use CUDA
import spacy


def tag_reviews(reviews):
    spacy.require_gpu()
    nlp = spacy.load("en_core_web_trf")
    tags = []
    for doc in nlp.pipe(reviews, n_process=3):  # expect: GPU001
        tags.append([token.pos_ for token in doc])
    return tags


if __name__ == "__main__":
    print(tag_reviews(["arrived late", "works as described"]))
