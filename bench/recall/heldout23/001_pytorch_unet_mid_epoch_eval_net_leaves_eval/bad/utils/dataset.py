import os

import numpy as np
import torch
from PIL import Image
from torch.utils.data import Dataset


class BasicDataset(Dataset):
    def __init__(self, imgs_dir, masks_dir, scale=1.0):
        self.imgs_dir = imgs_dir
        self.masks_dir = masks_dir
        self.scale = scale
        self.ids = sorted(os.path.splitext(f)[0] for f in os.listdir(imgs_dir) if not f.startswith("."))

    def __len__(self):
        return len(self.ids)

    def _prepare(self, pil_img):
        w, h = pil_img.size
        pil_img = pil_img.resize((max(1, int(self.scale * w)), max(1, int(self.scale * h))))
        arr = np.array(pil_img)
        if arr.ndim == 2:
            arr = arr[..., None]
        arr = arr.transpose((2, 0, 1))
        return arr / 255.0 if arr.max() > 1 else arr

    def __getitem__(self, i):
        name = self.ids[i]
        img = Image.open(os.path.join(self.imgs_dir, name + ".jpg"))
        mask = Image.open(os.path.join(self.masks_dir, name + "_mask.gif"))
        return {
            "image": torch.from_numpy(self._prepare(img)).float(),
            "mask": torch.from_numpy(self._prepare(mask)).float(),
        }
