# silent: datasets' map(num_proc=...) runs through the multiprocess package, which pickles with dill and sends lambdas by value
from datasets import load_dataset


def main():
    ds = load_dataset("imdb", split="train")
    ds = ds.map(lambda row: {"n_chars": len(row["text"])}, num_proc=4)
    print(ds[0])


if __name__ == "__main__":
    main()
