import numpy as np
import torch
from torch.utils.data import Dataset


class CTDetDataset(Dataset):
    """Toy center-heatmap detection dataset with NumPy-driven augmentation."""

    def __init__(self, opt, split, num_samples=256):
        self.opt = opt
        self.split = split
        self.images = np.random.RandomState(0).rand(num_samples, 3, 128, 128).astype(np.float32)
        self.centers = np.random.RandomState(1).randint(16, 112, size=(num_samples, 2))

    def __len__(self):
        return len(self.images)

    def __getitem__(self, index):
        img = self.images[index]
        cx, cy = self.centers[index].astype(np.float32)
        if self.split == "train":
            scale = np.random.choice(np.arange(0.6, 1.4, 0.1))
            cx += np.clip(np.random.randn() * self.opt.shift, -8, 8)
            cy += np.clip(np.random.randn() * self.opt.shift, -8, 8)
            if np.random.random() < self.opt.flip:
                img = img[:, :, ::-1].copy()
                cx = img.shape[2] - 1 - cx
            img = img * scale
        hm = np.zeros((1, 32, 32), dtype=np.float32)
        hm[0, int(np.clip(cy / 4, 0, 31)), int(np.clip(cx / 4, 0, 31))] = 1.0
        return torch.from_numpy(np.ascontiguousarray(img)), torch.from_numpy(hm)
