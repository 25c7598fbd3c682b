import torch.nn as nn
import torch.nn.functional as F


class Pad3d(nn.Module):
    def __init__(self, pad, mode="constant"):
        super().__init__()
        self.pad = [pad] * 6
        self.mode = mode

    def forward(self, x):
        return F.pad(x, self.pad, self.mode)


class ConvUnit(nn.Module):
    """Pre-activation dilated convolution unit (norm -> relu -> pad -> conv)."""

    def __init__(self, in_ch, out_ch, dilation, dims=3, batch_norm=True,
                 instance_norm=False, norm_affine=True, preactivation=True,
                 kernel_size=3):
        super().__init__()
        assert not (batch_norm and instance_norm)
        conv_cls = nn.Conv3d if dims == 3 else nn.Conv2d
        if batch_norm:
            norm_class = nn.BatchNorm3d if dims == 3 else nn.BatchNorm2d
        if instance_norm:
            norm_class = nn.InstanceNorm3d if dims == 3 else nn.InstanceNorm2d
        use_norm = batch_norm or instance_norm

        layers = []
        if preactivation:
            if use_norm:
                layers.append(norm_class(in_ch, affine=norm_affine))
            layers.append(nn.ReLU())
        if kernel_size > 1:
            layers.append(Pad3d(dilation) if dims == 3 else nn.ZeroPad2d(dilation))
        layers.append(conv_cls(in_ch, out_ch, kernel_size, dilation=dilation, bias=not use_norm))
        if not preactivation:
            if use_norm:
                layers.append(norm_class(out_ch, affine=norm_affine))
            layers.append(nn.ReLU())
        self.body = nn.Sequential(*layers)

    def forward(self, x):
        return self.body(x)
