import torch
import torchvision

import utils


def main(args):
    utils.init_distributed_mode(args)
    device = torch.device(args.device)
    model = torchvision.models.segmentation.fcn_resnet50(num_classes=21)
    model.to(device)
    model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[args.gpu])
    model_without_ddp = model.module
    optimizer = torch.optim.SGD(model_without_ddp.parameters(), lr=args.lr, momentum=0.9)
    if args.resume:
        checkpoint = torch.load(args.resume)
        model_without_ddp.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"])
    return model


if __name__ == "__main__":
    main(utils.get_args_parser().parse_args())
