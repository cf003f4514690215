import spacy

spacy.require_gpu()
nlp = spacy.load("en_core_web_trf")


def entities(texts):
    rows = []
    for doc in nlp.pipe(texts, n_process=2, batch_size=64):
        rows.append([(ent.text, ent.label_) for ent in doc.ents])
    return rows


if __name__ == "__main__":
    sample = ["Apple is looking at buying a U.K. startup.", "Berlin hosts the summit."] * 100
    for row in entities(sample):
        print(row)
