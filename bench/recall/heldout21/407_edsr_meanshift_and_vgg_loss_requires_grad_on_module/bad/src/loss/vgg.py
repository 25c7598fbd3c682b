import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision.models as models

from model import common


class VGG(nn.Module):
    """Perceptual loss on VGG19 features (conv2_2 or conv5_4)."""

    def __init__(self, conv_index, rgb_range=1):
        super().__init__()
        features = models.vgg19(weights=models.VGG19_Weights.IMAGENET1K_V1).features
        modules = [m for m in features]
        if conv_index.find("22") >= 0:
            self.vgg = nn.Sequential(*modules[:8])
        elif conv_index.find("54") >= 0:
            self.vgg = nn.Sequential(*modules[:35])

        vgg_mean = (0.485, 0.456, 0.406)
        vgg_std = (0.229 * rgb_range, 0.224 * rgb_range, 0.225 * rgb_range)
        self.sub_mean = common.MeanShift(rgb_range, vgg_mean, vgg_std)
        self.vgg.requires_grad = False  # expect: TCK611

    def forward(self, sr, hr):
        def features(x):
            return self.vgg(self.sub_mean(x))

        vgg_sr = features(sr)
        with torch.no_grad():
            vgg_hr = features(hr.detach())
        return F.mse_loss(vgg_sr, vgg_hr)
