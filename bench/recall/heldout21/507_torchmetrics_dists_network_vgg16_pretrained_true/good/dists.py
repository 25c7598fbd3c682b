"""Deep Image Structure and Texture Similarity (DISTS), functional interface."""
from typing import List, Optional

import numpy as np
import torch
from torch import Tensor, nn
from torch.nn.functional import conv2d

try:
    import torchvision  # noqa: F401

    _TORCHVISION_AVAILABLE = True
except ImportError:
    _TORCHVISION_AVAILABLE = False


class L2pooling(nn.Module):
    def __init__(self, filter_size=5, stride=2, channels=None):
        super().__init__()
        self.padding = (filter_size - 2) // 2
        self.stride = stride
        self.channels = channels
        a = np.hanning(filter_size)[1:-1]
        g = torch.tensor(a[:, None] * a[None, :], dtype=torch.float32)
        g = g / g.sum()
        self.register_buffer("filter", g[None, None].repeat(channels, 1, 1, 1))

    def forward(self, x: Tensor) -> Tensor:
        out = conv2d(x ** 2, self.filter, stride=self.stride, padding=self.padding, groups=x.shape[1])
        return (out + 1e-12).sqrt()


class DISTSNetwork(nn.Module):
    def __init__(self, load_weights: bool = False) -> None:
        super().__init__()
        if _TORCHVISION_AVAILABLE:
            from torchvision import models
        else:
            raise ModuleNotFoundError("DISTS requires torchvision: `pip install torchvision`.")

        vgg_pretrained_features = models.vgg16(weights=models.VGG16_Weights.DEFAULT).features
        stage_bounds = [(0, 4), (5, 9), (10, 16), (17, 23), (24, 30)]
        pool_channels = [None, 64, 128, 256, 512]
        self.stages = nn.ModuleList()
        for (start, stop), channels in zip(stage_bounds, pool_channels):
            stage = nn.Sequential()
            if channels is not None:
                stage.add_module(str(start - 1), L2pooling(channels=channels))
            for i in range(start, stop):
                stage.add_module(str(i), vgg_pretrained_features[i])
            self.stages.append(stage)
        for param in self.parameters():
            param.requires_grad = False

        self.register_buffer("mean", torch.tensor([0.485, 0.456, 0.406]).view(1, -1, 1, 1))
        self.register_buffer("std", torch.tensor([0.229, 0.224, 0.225]).view(1, -1, 1, 1))
        self.chns = [3, 64, 128, 256, 512, 512]
        self.alpha = nn.Parameter(torch.empty(1, sum(self.chns), 1, 1).normal_(0.1, 0.01))
        self.beta = nn.Parameter(torch.empty(1, sum(self.chns), 1, 1).normal_(0.1, 0.01))

    def forward_once(self, x: Tensor) -> List[Tensor]:
        h = (x - self.mean) / self.std
        feats = [x]
        for stage in self.stages:
            h = stage(h)
            feats.append(h)
        return feats

    def forward(self, x: Tensor, y: Tensor, require_grad: bool = False) -> Tensor:
        with torch.set_grad_enabled(require_grad):
            feats0, feats1 = self.forward_once(x), self.forward_once(y)
        dist1, dist2, c1, c2 = 0, 0, 1e-6, 1e-6
        w_sum = self.alpha.sum() + self.beta.sum()
        alpha = torch.split(self.alpha / w_sum, self.chns, dim=1)
        beta = torch.split(self.beta / w_sum, self.chns, dim=1)
        for k in range(len(self.chns)):
            x_mean = feats0[k].mean([2, 3], keepdim=True)
            y_mean = feats1[k].mean([2, 3], keepdim=True)
            s1 = (2 * x_mean * y_mean + c1) / (x_mean ** 2 + y_mean ** 2 + c1)
            dist1 = dist1 + (alpha[k] * s1).sum(1, keepdim=True)
            x_var = ((feats0[k] - x_mean) ** 2).mean([2, 3], keepdim=True)
            y_var = ((feats1[k] - y_mean) ** 2).mean([2, 3], keepdim=True)
            xy_cov = (feats0[k] * feats1[k]).mean([2, 3], keepdim=True) - x_mean * y_mean
            s2 = (2 * xy_cov + c2) / (x_var + y_var + c2)
            dist2 = dist2 + (beta[k] * s2).sum(1, keepdim=True)
        return 1 - (dist1 + dist2).squeeze()


def _dists_update(preds: Tensor, target: Tensor) -> Tensor:
    dists = DISTSNetwork().to(preds.device)
    return dists(preds, target, require_grad=preds.requires_grad)


def _dists_compute(scores: Tensor, reduction: Optional[str]) -> Tensor:
    if reduction == "sum":
        return scores.sum()
    if reduction == "mean":
        return scores.mean()
    if reduction is None or reduction == "none":
        return scores
    raise ValueError(f"Argument {reduction} is not valid.")


def deep_image_structure_and_texture_similarity(preds: Tensor, target: Tensor, reduction: Optional[str] = None) -> Tensor:
    return _dists_compute(_dists_update(preds, target), reduction)
