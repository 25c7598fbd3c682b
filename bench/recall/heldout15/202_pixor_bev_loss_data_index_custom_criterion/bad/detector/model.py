import torch.nn as nn


def conv_bn(cin, cout, stride=1):
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
    )


class PixorLite(nn.Module):
    def __init__(self, in_ch=36, width=32):
        super().__init__()
        self.backbone = nn.Sequential(
            conv_bn(in_ch, width), conv_bn(width, width, 2), conv_bn(width, 2 * width)
        )
        self.up = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)
        self.head = nn.Conv2d(2 * width, 7, 1)  # 1 objectness + 6 box terms

    def forward(self, bev):
        return self.head(self.up(self.backbone(bev)))
