import torch.multiprocessing as mp
import torch.utils.model_zoo as model_zoo


def evaluate(url):
    state = model_zoo.load_url(url, map_location="cpu")
    return len(state)


if __name__ == "__main__":
    mp.set_start_method("spawn")
    urls = ["https://download.pytorch.org/models/resnet18-f37072fd.pth"]
    with mp.Pool(2) as pool:
        print(pool.map(evaluate, urls))
