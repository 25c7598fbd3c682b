import torch.nn as nn


class OutConv(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=1)

    def forward(self, x):
        return self.conv(x)


class UNet(nn.Module):
    def __init__(self, n_channels, n_classes, output_dim):
        super().__init__()
        self.inc = nn.Sequential(nn.Conv2d(n_channels, output_dim, 3, padding=1), nn.ReLU())
        self.outc = OutConv(output_dim, n_classes)

    def forward(self, x):
        return self.outc(self.inc(x))


def get_model(opt):
    return UNet(opt["input_channels"], opt["num_classes"] * opt["num_prototypes"], opt["output_dim"])
