import glob
import os

import numpy as np
import torch
from torch.utils.data import Dataset


class LoadImagesAndLabels(Dataset):
    def __init__(self, path, img_size=416, augment=False):
        with open(path, "r") as f:
            self.img_files = [x.strip() for x in f.read().splitlines() if x.strip()]
        self.label_files = [
            x.replace("images", "labels").replace(os.path.splitext(x)[-1], ".txt") for x in self.img_files
        ]
        self.img_size = img_size
        self.augment = augment

    def __len__(self):
        return len(self.img_files)

    def __getitem__(self, index):
        img = torch.zeros(3, self.img_size, self.img_size)
        labels = torch.zeros(0, 6)
        if os.path.isfile(self.label_files[index]):
            raw = np.loadtxt(self.label_files[index], ndmin=2).astype(np.float32)
            labels = torch.zeros(len(raw), 6)
            labels[:, 1:] = torch.from_numpy(raw)
        if self.augment and np.random.random() < 0.5:
            img = torch.flip(img, [2])
            labels[:, 2] = 1 - labels[:, 2]
        return img, labels, self.img_files[index], (self.img_size, self.img_size)

    @staticmethod
    def collate_fn(batch):
        img, label, path, hw = list(zip(*batch))
        for i, l in enumerate(label):
            l[:, 0] = i
        return torch.stack(img, 0), torch.cat(label, 0), path, hw


def list_images(folder):
    return sorted(glob.glob(os.path.join(folder, "*.jpg")))
