import functools

import torch
import torch.nn as nn
from torch.nn import init


def get_norm_layer(norm_type="batch"):
    if norm_type == "batch":
        return functools.partial(nn.BatchNorm2d, affine=True)
    if norm_type == "instance":
        return functools.partial(nn.InstanceNorm2d, affine=False)
    raise NotImplementedError(f"normalization layer [{norm_type}] is not found")


def init_weights(net, init_type="normal", gain=0.02):
    def init_func(m):
        classname = m.__class__.__name__
        if hasattr(m, "weight") and (classname.find("Conv") != -1 or classname.find("Linear") != -1):
            if init_type == "normal":
                init.normal_(m.weight, 0.0, gain)
            elif init_type == "xavier":
                init.xavier_normal_(m.weight, gain=gain)
            elif init_type == "kaiming":
                init.kaiming_normal_(m.weight, a=0, mode="fan_in")
            elif init_type == "orthogonal":
                init.orthogonal_(m.weight, gain=gain)
            else:
                raise NotImplementedError(f"initialization method [{init_type}] is not implemented")
            if hasattr(m, "bias") and m.bias is not None:
                init.constant_(m.bias, 0.0)
        elif classname.find("BatchNorm2d") != -1:
            init.normal_(m.weight, 1.0, gain)
            init.constant_(m.bias, 0.0)

    print(f"initialize network with {init_type}")
    net.apply(init_func)


def init_net(net, init_type="normal", init_gain=0.02, device="cpu"):
    net.to(device)
    init_weights(net, init_type, gain=init_gain)
    return net


class UnetGeneratorShiftTriple(nn.Module):
    """Tiny stand-in for the Shift-Net U-Net generator."""

    def __init__(self, input_nc=3, output_nc=3, ngf=64, norm_layer=nn.BatchNorm2d):
        super().__init__()
        self.down = nn.Sequential(nn.Conv2d(input_nc, ngf, 4, 2, 1), norm_layer(ngf), nn.LeakyReLU(0.2, True))
        self.up = nn.Sequential(nn.ConvTranspose2d(ngf, output_nc, 4, 2, 1), nn.Tanh())

    def forward(self, x):
        return self.up(self.down(x))


class NLayerDiscriminator(nn.Module):
    def __init__(self, input_nc=3, ndf=64, norm_layer=nn.BatchNorm2d):
        super().__init__()
        self.model = nn.Sequential(
            nn.Conv2d(input_nc, ndf, 4, 2, 1), nn.LeakyReLU(0.2, True),
            nn.Conv2d(ndf, ndf * 2, 4, 2, 1), norm_layer(ndf * 2), nn.LeakyReLU(0.2, True),
            nn.Conv2d(ndf * 2, 1, 4, 1, 1),
        )

    def forward(self, x):
        return self.model(x)


def define_G(init_type="normal", init_gain=0.02, device="cpu"):
    return init_net(UnetGeneratorShiftTriple(norm_layer=get_norm_layer("batch")), init_type, init_gain, device)


def define_D(init_type="normal", init_gain=0.02, device="cpu"):
    return init_net(NLayerDiscriminator(norm_layer=get_norm_layer("batch")), init_type, init_gain, device)
