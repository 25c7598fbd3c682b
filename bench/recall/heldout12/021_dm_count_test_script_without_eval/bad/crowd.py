import glob
import os

import numpy as np
import torch
from PIL import Image
from torchvision import transforms


class CrowdTest(torch.utils.data.Dataset):
    """Test split: one image and its annotated head count per item."""

    def __init__(self, root):
        self.im_list = sorted(glob.glob(os.path.join(root, "*.jpg")))
        self.trans = transforms.Compose([
            transforms.ToTensor(),
            transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]),
        ])

    def __len__(self):
        return len(self.im_list)

    def __getitem__(self, item):
        img_path = self.im_list[item]
        points = np.load(img_path.replace(".jpg", ".npy"))
        img = Image.open(img_path).convert("RGB")
        name = os.path.basename(img_path).split(".")[0]
        return self.trans(img), len(points), name
