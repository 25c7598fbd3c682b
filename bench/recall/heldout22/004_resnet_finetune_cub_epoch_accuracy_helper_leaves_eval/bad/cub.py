import os

from PIL import Image
from torch.utils.data import Dataset


class cub200(Dataset):
    def __init__(self, root, train=True, transform=None):
        self.root = root
        self.transform = transform
        split = "train" if train else "test"
        with open(os.path.join(root, f"{split}.txt")) as f:
            self.samples = [line.split() for line in f if line.strip()]

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, idx):
        path, label = self.samples[idx]
        img = Image.open(os.path.join(self.root, "images", path)).convert("RGB")
        if self.transform is not None:
            img = self.transform(img)
        return img, int(label)
