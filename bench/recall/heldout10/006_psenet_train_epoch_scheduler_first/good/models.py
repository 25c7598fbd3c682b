import os

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
from PIL import Image
from torch.utils.data import Dataset


class PSENet(nn.Module):
    def __init__(self, backbone="resnet50", result_num=6):
        super().__init__()
        resnet = getattr(torchvision.models, backbone)(weights=None)
        self.encoder = nn.Sequential(*list(resnet.children())[:-2])
        self.head = nn.Conv2d(2048, result_num, 1)

    def forward(self, x):
        h, w = x.shape[-2:]
        return F.interpolate(self.head(self.encoder(x)), size=(h, w), mode="bilinear", align_corners=False)


class PSELoss(nn.Module):
    def __init__(self, Lambda=0.7, ratio=3):
        super().__init__()
        self.Lambda = Lambda
        self.ratio = ratio

    def dice(self, pred, gt, mask):
        pred = torch.sigmoid(pred) * mask
        gt = gt * mask
        inter = (pred * gt).sum((1, 2))
        return 1 - (2 * inter + 1) / (pred.pow(2).sum((1, 2)) + gt.pow(2).sum((1, 2)) + 1)

    def forward(self, preds, labels, mask):
        loss_c = self.dice(preds[:, -1], labels[:, -1], mask).mean()
        loss_s = torch.stack([self.dice(preds[:, i], labels[:, i], mask) for i in range(preds.shape[1] - 1)]).mean()
        return loss_c, loss_s, self.Lambda * loss_c + (1 - self.Lambda) * loss_s


class TextDataset(Dataset):
    def __init__(self, root, n=6):
        self.files = sorted(os.path.join(root, f) for f in os.listdir(root) if f.endswith(".pt"))
        self.n = n

    def __len__(self):
        return len(self.files)

    def __getitem__(self, idx):
        sample = torch.load(self.files[idx])
        return sample["image"], sample["labels"], sample["mask"]
