import copy

import numpy as np
import torch
import torch.nn as nn


class UNet2D(nn.Module):
    """Small 2D U-Net producing a per-pixel embedding."""

    def __init__(self, in_channels, out_channels, f_maps=(32, 64, 128)):
        super().__init__()
        self.encoders = nn.ModuleList()
        prev = in_channels
        for f in f_maps:
            self.encoders.append(nn.Sequential(nn.Conv2d(prev, f, 3, padding=1), nn.BatchNorm2d(f), nn.ReLU(inplace=True)))
            prev = f
        self.decoders = nn.ModuleList()
        for f in reversed(f_maps[:-1]):
            self.decoders.append(nn.Sequential(nn.Conv2d(prev + f, f, 3, padding=1), nn.BatchNorm2d(f), nn.ReLU(inplace=True)))
            prev = f
        self.final = nn.Conv2d(prev, out_channels, 1)
        self.pool = nn.MaxPool2d(2)

    def forward(self, x):
        skips = []
        for i, enc in enumerate(self.encoders):
            x = enc(x if i == 0 else self.pool(x))
            skips.append(x)
        for dec, skip in zip(self.decoders, reversed(skips[:-1])):
            x = nn.functional.interpolate(x, size=skip.shape[-2:], mode="nearest")
            x = dec(torch.cat([skip, x], dim=1))
        return self.final(x)


class SpocoUNet(nn.Module):
    """Query embedding network trained by backprop; key network is its momentum (EMA) copy."""

    def __init__(self, unet_q, unet_k, m=0.999):
        super().__init__()
        self.unet_q = unet_q
        self.unet_k = unet_k
        self.m = m
        for param_q, param_k in zip(self.unet_q.parameters(), self.unet_k.parameters()):
            param_k.data.copy_(param_q.data)
            param_k.requires_grad = False

    @torch.no_grad()
    def _momentum_update_key_encoder(self):
        for param_q, param_k in zip(self.unet_q.parameters(), self.unet_k.parameters()):
            param_k.data.mul_(self.m).add_(param_q.data, alpha=1.0 - self.m)

    def forward(self, im_q, im_k):
        emb_q = self.unet_q(im_q)
        with torch.no_grad():
            self._momentum_update_key_encoder()
            emb_k = self.unet_k(im_k)
        return emb_q, emb_k


def get_number_of_learnable_parameters(model):
    return sum(int(np.prod(p.size())) for p in model.parameters() if p.requires_grad)


def create_model(args):
    unet_q = UNet2D(args.model_in_channels, args.model_out_channels, tuple(args.model_feature_maps))
    unet_k = copy.deepcopy(unet_q)
    model = SpocoUNet(unet_q, unet_k, m=getattr(args, "momentum", 0.999))

    # use DataParallel
    if torch.cuda.device_count() > 1:
        model = nn.DataParallel(model)  # expect: TCK204
        print(f"Using {torch.cuda.device_count()} GPUs for training")

    return model
