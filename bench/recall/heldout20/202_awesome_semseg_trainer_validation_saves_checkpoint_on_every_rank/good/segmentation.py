import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset


class RandomSegmentationDataset(Dataset):
    """Stand-in for the VOC/Cityscapes readers: random images and masks."""

    num_class = 21

    def __init__(self, size=256, crop_size=96):
        self.size = size
        self.crop_size = crop_size

    def __len__(self):
        return self.size

    def __getitem__(self, index):
        g = torch.Generator().manual_seed(index)
        image = torch.rand(3, self.crop_size, self.crop_size, generator=g)
        mask = torch.randint(0, self.num_class, (self.crop_size, self.crop_size), generator=g)
        return image, mask, f"img_{index:05d}"


class FCNHead(nn.Module):
    def __init__(self, nclass, norm_layer=nn.BatchNorm2d):
        super().__init__()
        self.pretrained = nn.Sequential(
            nn.Conv2d(3, 64, 3, stride=2, padding=1), norm_layer(64), nn.ReLU(inplace=True),
            nn.Conv2d(64, 128, 3, stride=2, padding=1), norm_layer(128), nn.ReLU(inplace=True),
        )
        self.head = nn.Conv2d(128, nclass, 1)
        self.exclusive = ["head"]

    def forward(self, x):
        size = x.shape[2:]
        out = self.head(self.pretrained(x))
        return (F.interpolate(out, size, mode="bilinear", align_corners=True),)


class MixSoftmaxCrossEntropyLoss(nn.CrossEntropyLoss):
    def forward(self, preds, target):
        return {"loss": super().forward(preds[0], target)}


class SegmentationMetric:
    def __init__(self, nclass):
        self.nclass = nclass
        self.reset()

    def reset(self):
        self.correct, self.labeled = 0, 0
        self.inter = torch.zeros(self.nclass)
        self.union = torch.zeros(self.nclass)

    def update(self, pred, target):
        pred = pred.argmax(1)
        self.correct += (pred == target).sum().item()
        self.labeled += target.numel()
        for c in range(self.nclass):
            p, t = pred == c, target == c
            self.inter[c] += (p & t).sum().item()
            self.union[c] += (p | t).sum().item()

    def get(self):
        pix_acc = self.correct / max(self.labeled, 1)
        miou = (self.inter / self.union.clamp(min=1)).mean().item()
        return pix_acc, miou
