import multiprocessing

import torch


class Predictor:
    def setup(self):
        self.model = torch.jit.load("model.pt").to("cuda").eval()

    def predict(self, values):
        with torch.no_grad():
            x = torch.tensor(values, device="cuda").unsqueeze(0)
            return self.model(x).cpu().tolist()


def serve(requests, responses):
    predictor = Predictor()
    predictor.setup()
    while True:
        item = requests.get()
        if item is None:
            break
        responses.put(predictor.predict(item))


if __name__ == "__main__":
    ctx = multiprocessing.get_context("spawn")
    requests, responses = ctx.Queue(), ctx.Queue()
    worker = ctx.Process(target=serve, args=(requests, responses))
    worker.start()
    requests.put([0.1, 0.2, 0.3])
    print(responses.get())
    requests.put(None)
    worker.join()
