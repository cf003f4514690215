import torch

from utils.helpers import get_criterion, get_loaders, load_model
from utils.parser import get_parser_with_args


def main():
    parser, metadata = get_parser_with_args()
    opt = parser.parse_args()
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    train_loader, val_loader = get_loaders(opt)
    model = load_model(opt, dev)
    criterion = get_criterion(opt)
    optimizer = torch.optim.AdamW(model.parameters(), lr=opt.learning_rate)
    for epoch in range(opt.epochs):
        model.train()
        for batch_img1, batch_img2, labels in train_loader:
            optimizer.zero_grad()
            cd_preds = model(batch_img1.float().to(dev), batch_img2.float().to(dev))
            loss = criterion(cd_preds, labels.long().to(dev))
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    main()
