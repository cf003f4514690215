from torch.utils.data import DataLoader
from torchvision.datasets import ImageFolder
from torchvision.transforms import CenterCrop, Compose, Normalize, Resize, ToTensor


def _convert_image_to_rgb(image):
    return image.convert("RGB")


def _transform(n_px):
    return Compose([
        Resize(n_px),
        CenterCrop(n_px),
        _convert_image_to_rgb,
        ToTensor(),
        Normalize((0.481, 0.458, 0.408), (0.269, 0.261, 0.276)),
    ])


def embed_folder(model, root):
    loader = DataLoader(ImageFolder(root, transform=_transform(224)), batch_size=128, num_workers=4)
    features = []
    for images, _ in loader:
        features.append(model.encode_image(images.cuda()).float().cpu())
    return features
