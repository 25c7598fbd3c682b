import random

import numpy as np
import torch
from torch.utils.data import Dataset


class RandomClipDataset(Dataset):
    """Stand-in for a video dataset: random temporal crop + random spatial crop per sample."""

    def __init__(self, n_videos=200, n_frames=64, clip_len=16, size=112, n_classes=400):
        self.n_videos = n_videos
        self.n_frames = n_frames
        self.clip_len = clip_len
        self.size = size
        self.n_classes = n_classes

    def __len__(self):
        return self.n_videos

    def __getitem__(self, idx):
        start = random.randint(0, self.n_frames - self.clip_len)
        x0, y0 = np.random.randint(0, 128 - self.size, size=2)
        video = torch.randn(3, self.n_frames, 128, 128)
        clip = video[:, start:start + self.clip_len, y0:y0 + self.size, x0:x0 + self.size]
        return clip, idx % self.n_classes
