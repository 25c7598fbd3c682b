import os

import imageio.v3 as iio
import numpy as np
import torch
from PIL import Image
from torch.utils.data import Dataset
from torchvision import transforms
from torchvision.transforms import v2


class VideoPreprocessDataset(Dataset):
    def __init__(self, root, metadata, height=480, width=832, num_frames=81, center_crop=True, random_flip=False):
        self.root = root
        self.metadata = metadata
        self.num_frames = num_frames
        self.frame_process = v2.Compose(
            [
                v2.CenterCrop(size=(height, width)),
                v2.Resize(size=(height, width), antialias=True),
                v2.ToImage(),
                v2.ToDtype(torch.float32, scale=True),
                v2.Normalize(mean=[0.5, 0.5, 0.5], std=[0.5, 0.5, 0.5]),
            ]
        )
        self.image_processor = transforms.Compose(
            [
                transforms.CenterCrop((height, width)) if center_crop else transforms.RandomCrop((height, width)),
                transforms.RandomHorizontalFlip() if random_flip else transforms.Lambda(lambda x: x),
                transforms.ToTensor(),
                transforms.Normalize([0.5], [0.5]),
            ]
        )

    def __len__(self):
        return len(self.metadata)

    def _load_video(self, path):
        frames = iio.imread(path, plugin="pyav")[: self.num_frames]
        processed = [self.frame_process(Image.fromarray(np.asarray(f))) for f in frames]
        return torch.stack(processed, dim=1)

    def __getitem__(self, idx):
        item = self.metadata[idx]
        path = os.path.join(self.root, item["file"])
        if path.endswith((".mp4", ".mov")):
            pixels = self._load_video(path)
        else:
            pixels = self.image_processor(Image.open(path).convert("RGB")).unsqueeze(1)
        return {"pixel_values": pixels, "prompt": item["caption"]}
