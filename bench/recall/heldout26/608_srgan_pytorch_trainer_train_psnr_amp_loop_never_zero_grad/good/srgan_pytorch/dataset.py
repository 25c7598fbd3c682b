import os

import torch.utils.data
import torchvision.transforms as transforms
from PIL import Image


class CustomTrainDataset(torch.utils.data.Dataset):
    """Pairs of `input/` (low resolution) and `target/` (high resolution) images with the same names."""

    def __init__(self, root):
        self.input_dir = os.path.join(root, "input")
        self.target_dir = os.path.join(root, "target")
        self.filenames = sorted(os.listdir(self.input_dir))
        self.transforms = transforms.ToTensor()

    def __getitem__(self, index):
        name = self.filenames[index]
        lr = self.transforms(Image.open(os.path.join(self.input_dir, name)).convert("RGB"))
        hr = self.transforms(Image.open(os.path.join(self.target_dir, name)).convert("RGB"))
        return lr, hr

    def __len__(self):
        return len(self.filenames)


class CustomTestDataset(CustomTrainDataset):
    def __init__(self, root, image_size=96):
        super(CustomTestDataset, self).__init__(root)
        self.transforms = transforms.Compose([transforms.CenterCrop(image_size), transforms.ToTensor()])
