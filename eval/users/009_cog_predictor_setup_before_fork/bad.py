import multiprocessing

import torch


class Predictor:
    def setup(self):
        self.model = torch.jit.load("model.pt").to("cuda").eval()

    def predict(self, values):
        with torch.no_grad():
            x = torch.tensor(values, device="cuda").unsqueeze(0)
            return self.model(x).cpu().tolist()


def serve(predictor, requests, responses):
    while True:
        item = requests.get()
        if item is None:
            break
        responses.put(predictor.predict(item))


if __name__ == "__main__":
    predictor = Predictor()
    predictor.setup()
    requests, responses = multiprocessing.Queue(), multiprocessing.Queue()
    worker = multiprocessing.Process(target=serve, args=(predictor, requests, responses))
    worker.start()
    requests.put([0.1, 0.2, 0.3])
    print(responses.get())
    requests.put(None)
    worker.join()
