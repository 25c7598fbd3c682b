import glob
import os

import numpy as np
import torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset


class CVPPPTestDataset(Dataset):
    """Leaf images of the CVPPP A1 test split; yields (image, path) or (image, image, path) for SPOCO."""

    def __init__(self, root, spoco):
        self.paths = sorted(glob.glob(os.path.join(root, 'test', 'A1', '*_rgb.png')))
        self.spoco = spoco

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, idx):
        path = self.paths[idx]
        img = np.asarray(Image.open(path).convert('RGB').resize((448, 448)), dtype=np.float32) / 255.0
        img = torch.from_numpy(img).permute(2, 0, 1)
        if self.spoco:
            return img, img.clone(), path
        return img, path


def prediction_collate(batch):
    """Stacks the image tensors of a test batch and keeps the file paths as a list."""
    if isinstance(batch[0], torch.Tensor):
        return torch.stack(batch, 0)
    if isinstance(batch[0], str):
        return list(batch)
    return [prediction_collate(samples) for samples in zip(*batch)]


def create_test_loader(args):
    test_dataset = CVPPPTestDataset(args.ds_path, spoco=args.spoco)
    return DataLoader(test_dataset, batch_size=args.batch_size, num_workers=args.num_workers,
                      collate_fn=prediction_collate)
