import torch
import torch.distributed as dist


class HiddenStatesGenerator:
    def __init__(self, model_path, tp_size):
        dist.init_process_group("nccl")
        self.tp_rank = dist.get_rank() % tp_size
        torch.cuda.set_device(self.tp_rank)
        self.model = torch.load(model_path, map_location=f"cuda:{self.tp_rank}", weights_only=False)

    @torch.no_grad()
    def run(self, batches):
        for input_ids in batches:
            yield self.model(input_ids.cuda()).hidden_states


if __name__ == "__main__":
    gen = HiddenStatesGenerator("target_model.pt", tp_size=16)
    for h in gen.run([torch.randint(0, 1000, (1, 128))]):
        print(h[-1].shape)
