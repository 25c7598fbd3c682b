import glob
import os

import numpy as np
import torch
from torch.utils.data import Dataset


class LoadImagesAndLabels(Dataset):
    """Images with YOLO-format label files next to them (letterboxed, optionally augmented)."""

    def __init__(self, path, img_size=640, batch_size=16, augment=False, hyp=None, rect=False, stride=32):
        self.img_files = sorted(glob.glob(os.path.join(path, "*.jpg")))
        self.label_files = [f.replace("images", "labels").rsplit(".", 1)[0] + ".txt" for f in self.img_files]
        self.img_size = img_size
        self.augment = augment
        self.hyp = hyp
        self.rect = rect
        self.stride = stride
        self.labels = [self._read_labels(f) for f in self.label_files]

    @staticmethod
    def _read_labels(path):
        if os.path.isfile(path):
            return np.loadtxt(path, ndmin=2).astype(np.float32)
        return np.zeros((0, 5), dtype=np.float32)

    def __len__(self):
        return len(self.img_files)

    def __getitem__(self, index):
        img = np.zeros((3, self.img_size, self.img_size), dtype=np.uint8)  # decoding elided
        labels = self.labels[index]
        targets = torch.zeros((len(labels), 6))
        if len(labels):
            targets[:, 1:] = torch.from_numpy(labels)
        return torch.from_numpy(img), targets, self.img_files[index], None

    @staticmethod
    def collate_fn(batch):
        img, label, path, shapes = zip(*batch)
        for i, l in enumerate(label):
            l[:, 0] = i  # image index in the batch
        return torch.stack(img, 0), torch.cat(label, 0), path, shapes


def create_dataloader(path, imgsz, batch_size, stride, opt, hyp=None, augment=False, rect=False, rank=0, split=False):
    dataset = LoadImagesAndLabels(path, imgsz, batch_size, augment=augment, hyp=hyp, rect=rect, stride=stride)
    batch_size = min(batch_size, len(dataset))
    nw = min([os.cpu_count(), batch_size if batch_size > 1 else 0, 8])  # number of workers

    if split:
        datasampler = torch.utils.data.distributed.DistributedSampler(dataset, num_replicas=opt.world_size, rank=rank)
        dataloader = torch.utils.data.DataLoader(
            dataset,
            batch_size=batch_size,
            num_workers=nw,
            pin_memory=True,
            collate_fn=LoadImagesAndLabels.collate_fn,
            sampler=datasampler,
        )
    else:
        dataloader = torch.utils.data.DataLoader(
            dataset,
            batch_size=batch_size,
            num_workers=nw,
            pin_memory=True,
            collate_fn=LoadImagesAndLabels.collate_fn,
        )
    return dataloader, dataset
