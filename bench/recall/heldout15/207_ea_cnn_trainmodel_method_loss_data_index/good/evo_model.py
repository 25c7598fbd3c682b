import torch.nn as nn
import torch.nn.functional as F


class ResUnit(nn.Module):
    def __init__(self, in_ch, out_ch):
        super().__init__()
        self.conv1 = nn.Conv2d(in_ch, out_ch, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(out_ch)
        self.conv2 = nn.Conv2d(out_ch, out_ch, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(out_ch)
        self.skip = nn.Conv2d(in_ch, out_ch, 1, bias=False) if in_ch != out_ch else nn.Identity()

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + self.skip(x))


class EvoCNNModel(nn.Module):
    """An individual decoded from the genome: ResUnits interleaved with pooling."""

    def __init__(self, genome=((3, 32), "max", (32, 64), "avg", (64, 128))):
        super().__init__()
        layers = []
        for gene in genome:
            if gene == "max":
                layers.append(nn.MaxPool2d(2))
            elif gene == "avg":
                layers.append(nn.AvgPool2d(2))
            else:
                layers.append(ResUnit(*gene))
        self.features = nn.Sequential(*layers)
        self.linear = nn.Linear(128, 10)

    def forward(self, x):
        out = self.features(x)
        out = F.adaptive_avg_pool2d(out, 1).flatten(1)
        return self.linear(out)
