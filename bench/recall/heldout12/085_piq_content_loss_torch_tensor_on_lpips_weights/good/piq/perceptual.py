from typing import List, Union

import torch
import torch.nn as nn
from torchvision.models import VGG16_Weights, vgg16

VGG16_LAYERS = {"conv1_2": 3, "conv2_2": 8, "conv3_3": 15, "conv4_3": 22, "conv5_3": 29}
LPIPS_WEIGHTS_URL = "https://github.com/photosynthesis-team/piq/releases/download/v0.4.0/lpips_weights.pt"
IMAGENET_MEAN = [0.485, 0.456, 0.406]
IMAGENET_STD = [0.229, 0.224, 0.225]


class ContentLoss(nn.Module):
    def __init__(self, layers=("relu3_3",), weights: List[Union[float, torch.Tensor]] = (1.0,), distance="mse",
                 reduction="mean", normalize_features=False):
        super().__init__()
        self.model = vgg16(weights=VGG16_Weights.IMAGENET1K_V1).features
        self.layers = [VGG16_LAYERS[name] for name in layers]
        for param in self.model.parameters():
            param.requires_grad_(False)
        self.distance = {"mse": nn.MSELoss, "mae": nn.L1Loss}[distance](reduction="none")
        self.weights = [torch.tensor(w) if not isinstance(w, torch.Tensor) else w for w in weights]
        self.register_buffer("mean", torch.tensor(IMAGENET_MEAN).view(1, -1, 1, 1))
        self.register_buffer("std", torch.tensor(IMAGENET_STD).view(1, -1, 1, 1))
        self.normalize_features = normalize_features
        self.reduction = reduction

    def get_features(self, x):
        x = (x - self.mean) / self.std
        features = []
        for i, module in enumerate(self.model):
            x = module(x)
            if i in self.layers:
                features.append(self.normalize(x) if self.normalize_features else x)
        return features

    @staticmethod
    def normalize(x, eps=1e-10):
        return x / (torch.sqrt(torch.sum(x ** 2, dim=1, keepdim=True)) + eps)

    def forward(self, x, y):
        x_features = self.get_features(x)
        y_features = self.get_features(y)
        distances = [self.distance(fx, fy) for fx, fy in zip(x_features, y_features)]
        loss = torch.cat([(d * w.to(d)).mean(dim=[2, 3]) for d, w in zip(distances, self.weights)], dim=1).sum(dim=1)
        return loss.mean() if self.reduction == "mean" else loss


class LPIPS(ContentLoss):
    def __init__(self, reduction="mean"):
        lpips_layers = ["conv1_2", "conv2_2", "conv3_3", "conv4_3", "conv5_3"]
        lpips_weights = torch.hub.load_state_dict_from_url(LPIPS_WEIGHTS_URL, progress=False)
        super().__init__(layers=lpips_layers, weights=list(lpips_weights.values()), distance="mse",
                         reduction=reduction, normalize_features=True)
