import torch
from torch import nn


class UNet2D(nn.Module):
    """Small stand-in for the embedding U-Net: image in, per-pixel embeddings out."""

    def __init__(self, in_channels, out_channels, f_maps):
        super().__init__()
        layers = []
        channels = in_channels
        for f in f_maps:
            layers += [nn.Conv2d(channels, f, 3, padding=1), nn.BatchNorm2d(f), nn.ReLU(inplace=True)]
            channels = f
        self.encoder = nn.Sequential(*layers)
        self.final_conv = nn.Conv2d(channels, out_channels, 1)

    def forward(self, x):
        return self.final_conv(self.encoder(x))


class SpocoNet(nn.Module):
    """Two embedding networks: f is trained, g follows f as a momentum copy."""

    def __init__(self, net_f, net_g, m=0.999):
        super().__init__()
        self.net_f = net_f
        self.net_g = net_g
        self.m = m
        for p_g in self.net_g.parameters():
            p_g.requires_grad = False

    @torch.no_grad()
    def _momentum_update(self):
        for p_f, p_g in zip(self.net_f.parameters(), self.net_g.parameters()):
            p_g.data = p_g.data * self.m + p_f.data * (1.0 - self.m)

    def forward(self, im_f, im_g):
        emb_f = self.net_f(im_f)
        with torch.no_grad():
            self._momentum_update()
            emb_g = self.net_g(im_g)
        return emb_f, emb_g


def create_model(args):
    net_f = UNet2D(args.model_in_channels, args.model_out_channels, args.model_feature_maps)
    if not args.spoco:
        return net_f
    net_g = UNet2D(args.model_in_channels, args.model_out_channels, args.model_feature_maps)
    return SpocoNet(net_f, net_g)
