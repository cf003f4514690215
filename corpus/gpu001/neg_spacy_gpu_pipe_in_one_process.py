# silent: fork before init does not apply, nothing is forked: with n_process=1 the GPU pipeline runs in this process
import spacy


def tag_reviews(reviews):
    spacy.prefer_gpu()
    nlp = spacy.load("en_core_web_trf")
    return [[token.pos_ for token in doc] for doc in nlp.pipe(reviews, n_process=1, batch_size=64)]


if __name__ == "__main__":
    print(tag_reviews(["arrived late", "works as described"]))
