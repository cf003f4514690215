# silent: fork after init, but the child never touches CUDA: torch put the classifier on the GPU in the parent, while spaCy stays on the CPU (no prefer_gpu), so the pipe workers forked from it only tokenize on the host
import spacy
import torch


def score_reviews(reviews):
    classifier = torch.nn.Linear(300, 2).cuda()
    nlp = spacy.load("en_core_web_md")
    vectors = [doc.vector for doc in nlp.pipe(reviews, n_process=4)]
    batch = torch.tensor(vectors, device="cuda")
    return classifier(batch).argmax(dim=1).tolist()


if __name__ == "__main__":
    print(score_reviews(["arrived late", "works as described"]))
