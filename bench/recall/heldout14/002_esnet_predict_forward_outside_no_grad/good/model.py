import torch.nn as nn
import torch.nn.functional as F


class ConvBNReLU(nn.Sequential):
    def __init__(self, cin, cout, stride=1, dilation=1):
        super().__init__(
            nn.Conv2d(cin, cout, 3, stride=stride, padding=dilation, dilation=dilation, bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU(inplace=True),
        )


class LightSegNet(nn.Module):
    """Compact encoder-decoder for real-time semantic segmentation."""

    def __init__(self, classes=19):
        super().__init__()
        self.stem = ConvBNReLU(3, 32, stride=2)
        self.stage1 = nn.Sequential(ConvBNReLU(32, 64, stride=2), ConvBNReLU(64, 64))
        self.stage2 = nn.Sequential(ConvBNReLU(64, 128, stride=2), ConvBNReLU(128, 128, dilation=2))
        self.dropout = nn.Dropout2d(0.1)
        self.classifier = nn.Conv2d(128, classes, 1)

    def forward(self, x):
        size = x.shape[-2:]
        out = self.stage2(self.stage1(self.stem(x)))
        out = self.classifier(self.dropout(out))
        return F.interpolate(out, size=size, mode="bilinear", align_corners=False)


def build_model(name, num_classes):
    if name == "LightSegNet":
        return LightSegNet(classes=num_classes)
    raise NotImplementedError(name)
