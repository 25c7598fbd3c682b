import glob
import os

import PIL.Image
import torch
import torchvision.transforms as transforms


def get_x(path, width):
    """Steering x target encoded in the file name, scaled to [-1, 1]."""
    return (float(int(os.path.basename(path).split("_")[1])) - width / 2) / (width / 2)


def get_y(path, height):
    return (float(int(os.path.basename(path).split("_")[2])) - height / 2) / (height / 2)


class XYDataset(torch.utils.data.Dataset):
    def __init__(self, directory):
        self.image_paths = sorted(glob.glob(os.path.join(directory, "*.jpg")))
        self.color_jitter = transforms.ColorJitter(0.3, 0.3, 0.3, 0.3)

    def __len__(self):
        return len(self.image_paths)

    def __getitem__(self, idx):
        path = self.image_paths[idx]
        image = PIL.Image.open(path)
        width, height = image.size
        x, y = float(get_x(path, width)), float(get_y(path, height))
        image = self.color_jitter(image)
        image = transforms.functional.resize(image, (224, 224))
        image = transforms.functional.to_tensor(image)
        image = transforms.functional.normalize(image, [0.485, 0.456, 0.406], [0.229, 0.224, 0.225])
        return image, torch.tensor([x, y]).float()
