import os

import torch
from PIL import Image
from torch.utils.data import Dataset
from torchvision.transforms import v2


class VideoClipDataset(Dataset):
    """Returns a clip of consecutive frames (normalised to [-1, 1]) and its caption."""

    def __init__(self, root, captions, num_frames=16, height=480, width=832):
        self.root = root
        self.captions = captions
        self.clips = sorted(captions)
        self.num_frames = num_frames
        self.frame_process = v2.Compose([
            v2.Resize(size=(height, width), antialias=True),
            v2.ToTensor(),  # expect: TCK910
            v2.Normalize(mean=[0.5, 0.5, 0.5], std=[0.5, 0.5, 0.5]),
        ])

    def __len__(self):
        return len(self.clips)

    def load_frames(self, clip_dir):
        names = sorted(os.listdir(clip_dir))[: self.num_frames]
        frames = [self.frame_process(Image.open(os.path.join(clip_dir, n)).convert("RGB")) for n in names]
        return torch.stack(frames, dim=1)

    def __getitem__(self, index):
        clip = self.clips[index]
        video = self.load_frames(os.path.join(self.root, clip))
        return {"video": video, "text": self.captions[clip]}
