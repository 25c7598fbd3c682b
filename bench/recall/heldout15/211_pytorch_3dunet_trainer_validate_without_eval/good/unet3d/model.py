import torch
import torch.nn as nn


def conv_block(cin, cout, norm="bn"):
    norm_layer = nn.BatchNorm3d(cout) if norm == "bn" else nn.GroupNorm(8, cout)
    return nn.Sequential(nn.Conv3d(cin, cout, 3, padding=1, bias=False), norm_layer, nn.ReLU(inplace=True))


class UNet3D(nn.Module):
    def __init__(self, in_channels=1, out_channels=2, f_maps=16, norm="bn", dropout=0.1):
        super().__init__()
        self.enc1 = conv_block(in_channels, f_maps, norm)
        self.enc2 = nn.Sequential(nn.MaxPool3d(2), conv_block(f_maps, 2 * f_maps, norm), nn.Dropout3d(dropout))
        self.up = nn.Upsample(scale_factor=2, mode="trilinear", align_corners=False)
        self.dec1 = conv_block(3 * f_maps, f_maps, norm)
        self.final_conv = nn.Conv3d(f_maps, out_channels, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(e1)
        x = self.dec1(torch.cat([self.up(e2), e1], dim=1))
        return self.final_conv(x)
