import torch
import torch.multiprocessing as mp


class Agent:
    def __init__(self, shared=None):
        if shared is None:
            self.model = torch.nn.Linear(128, 10)
        else:
            self.model = shared["model"]
        self.model.cuda()

    def share(self):
        return {"model": self.model}

    def train_step(self, x):
        return self.model(x.cuda()).sum()


class HogwildProcess(mp.Process):
    def __init__(self, shared, steps):
        super().__init__(daemon=True)
        self.shared = shared
        self.steps = steps

    def run(self):
        agent = Agent(self.shared)
        for _ in range(self.steps):
            agent.train_step(torch.randn(32, 128)).backward()


if __name__ == "__main__":
    main_agent = Agent()
    shared = main_agent.share()
    workers = [HogwildProcess(shared, 100) for _ in range(3)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
