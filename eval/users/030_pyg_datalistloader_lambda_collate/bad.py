import torch.utils.data


class DataListLoader(torch.utils.data.DataLoader):
    def __init__(self, dataset, batch_size=1, shuffle=False, **kwargs):
        super().__init__(dataset, batch_size, shuffle, collate_fn=lambda data_list: data_list, **kwargs)


def run(dataset, model):
    loader = DataListLoader(dataset, batch_size=32, shuffle=True, num_workers=2)
    for data_list in loader:
        model(data_list)


if __name__ == "__main__":
    run(list(range(1000)), print)
