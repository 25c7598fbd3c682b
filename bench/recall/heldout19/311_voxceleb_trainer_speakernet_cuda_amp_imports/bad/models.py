import torch
import torch.nn as nn
import torch.nn.functional as F


class ResNetSE(nn.Module):
    def __init__(self, n_mels=40, nOut=512):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
            nn.Conv2d(64, 128, 3, stride=2, padding=1), nn.BatchNorm2d(128), nn.ReLU())
        self.fc = nn.Linear(128, nOut)

    def forward(self, x):
        x = self.conv(x.unsqueeze(1))
        x = x.mean(dim=(2, 3))
        return self.fc(x)


class AMSoftmax(nn.Module):
    def __init__(self, nOut=512, nClasses=1211, margin=0.2, scale=30):
        super().__init__()
        self.m = margin
        self.s = scale
        self.W = nn.Parameter(torch.randn(nOut, nClasses) * 0.01)

    def forward(self, x, label):
        costh = F.normalize(x, dim=1) @ F.normalize(self.W, dim=0)
        margin = torch.zeros_like(costh).scatter_(1, label.view(-1, 1), self.m)
        logits = self.s * (costh - margin)
        loss = F.cross_entropy(logits, label)
        prec1 = (logits.argmax(dim=1) == label).float().mean() * 100
        return loss, prec1
