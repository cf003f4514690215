import torch.multiprocessing as mp
import torch.utils.model_zoo as model_zoo


def evaluate(url):
    state = model_zoo.load_url(url, map_location="cpu")
    return len(state)


if __name__ == "__main__":
    ctx = mp.get_context("spawn")
    urls = ["https://download.pytorch.org/models/resnet18-f37072fd.pth"]
    with ctx.Pool(2) as pool:
        print(pool.map(evaluate, urls))
