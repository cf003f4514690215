import cv2
from torch.utils.data import DataLoader
from torchvision import transforms

from kekas.transformations import Transformer, normalize, to_torch

from data import ImageDataset, augs


def get_transforms(dataset_key, size):
    pre = Transformer(dataset_key, lambda x: cv2.resize(x, (size, size)))
    aug = Transformer(dataset_key, lambda x: augs()(image=x)["image"])
    norm = transforms.Compose([Transformer(dataset_key, to_torch()), Transformer(dataset_key, normalize())])
    return transforms.Compose([pre, aug, norm]), transforms.Compose([pre, norm])


def make_loaders(train_df, val_df, size=224):
    train_tfms, val_tfms = get_transforms("image", size)
    train_dl = DataLoader(ImageDataset(train_df, train_tfms), batch_size=32, shuffle=True, num_workers=4)
    val_dl = DataLoader(ImageDataset(val_df, val_tfms), batch_size=32, num_workers=4)
    return train_dl, val_dl
