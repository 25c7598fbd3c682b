import torch
import torch.nn as nn
from torch.nn import init


def conv(batch_norm, in_planes, out_planes, kernel_size=3, stride=1):
    layers = [nn.Conv2d(in_planes, out_planes, kernel_size, stride, (kernel_size - 1) // 2, bias=not batch_norm)]
    if batch_norm:
        layers.append(nn.BatchNorm2d(out_planes))
    layers.append(nn.LeakyReLU(0.1, inplace=True))
    return nn.Sequential(*layers)


def deconv(in_planes, out_planes):
    return nn.Sequential(
        nn.ConvTranspose2d(in_planes, out_planes, kernel_size=4, stride=2, padding=1, bias=True),
        nn.LeakyReLU(0.1, inplace=True),
    )


def predict_flow(in_planes):
    return nn.Conv2d(in_planes, 2, kernel_size=3, stride=1, padding=1, bias=True)


class FlowNetS(nn.Module):
    """Encoder-decoder that regresses optical flow from two stacked frames."""

    def __init__(self, input_channels=6, batch_norm=True):
        super().__init__()
        self.conv1 = conv(batch_norm, input_channels, 64, kernel_size=7, stride=2)
        self.conv2 = conv(batch_norm, 64, 128, kernel_size=5, stride=2)
        self.conv3 = conv(batch_norm, 128, 256, kernel_size=5, stride=2)
        self.conv4 = conv(batch_norm, 256, 512, stride=2)
        self.deconv3 = deconv(512, 128)
        self.deconv2 = deconv(386, 64)
        self.predict_flow4 = predict_flow(512)
        self.predict_flow3 = predict_flow(386)
        self.predict_flow2 = predict_flow(194)
        self.upsampled_flow4_to_3 = nn.ConvTranspose2d(2, 2, 4, 2, 1, bias=True)
        self.upsampled_flow3_to_2 = nn.ConvTranspose2d(2, 2, 4, 2, 1, bias=True)

        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                if m.bias is not None:
                    init.uniform_(m.bias)
                init.xavier_uniform_(m.weight)

            if isinstance(m, nn.ConvTranspose2d):
                if m.bias is not None:
                    init.uniform_(m.bias)
                init.xavier_uniform_(m.weight)
        self.upsample1 = nn.Upsample(scale_factor=4, mode="bilinear")

    def forward(self, x):
        out_conv2 = self.conv2(self.conv1(x))
        out_conv3 = self.conv3(out_conv2)
        out_conv4 = self.conv4(out_conv3)

        flow4 = self.predict_flow4(out_conv4)
        concat3 = torch.cat((out_conv3, self.deconv3(out_conv4), self.upsampled_flow4_to_3(flow4)), 1)
        flow3 = self.predict_flow3(concat3)
        concat2 = torch.cat((out_conv2, self.deconv2(concat3), self.upsampled_flow3_to_2(flow3)), 1)
        flow2 = self.predict_flow2(concat2)
        if self.training:
            return flow2, flow3, flow4
        return (flow2,)
