import torch
import torch.nn as nn


class EncoderBlock(nn.Module):
    def __init__(self, in_ch, out_ch):
        super().__init__()
        self.conv = nn.Conv2d(in_ch, out_ch, kernel_size=(7, 3), padding=(3, 1))
        self.bn = nn.BatchNorm2d(out_ch)
        self.pool = nn.MaxPool2d(2, 2, return_indices=True)

    def forward(self, x):
        out = torch.relu(self.bn(self.conv(x)))
        pooled, ind = self.pool(out)
        return pooled, out, ind


class DecoderBlock(nn.Module):
    def __init__(self, ch):
        super().__init__()
        self.unpool = nn.MaxUnpool2d(2, 2)
        self.conv = nn.Conv2d(2 * ch, ch, kernel_size=(7, 3), padding=(3, 1))
        self.bn = nn.BatchNorm2d(ch)

    def forward(self, x, skip, ind):
        up = self.unpool(x, ind, output_size=skip.size())
        return torch.relu(self.bn(self.conv(torch.cat([up, skip], dim=1))))


class ReLayNet(nn.Module):
    def __init__(self, num_channels=1, num_filters=64, num_classes=10):
        super().__init__()
        self.encode1 = EncoderBlock(num_channels, num_filters)
        self.encode2 = EncoderBlock(num_filters, num_filters)
        self.bottleneck = nn.Sequential(nn.Conv2d(num_filters, num_filters, 3, padding=1), nn.BatchNorm2d(num_filters))
        self.decode2 = DecoderBlock(num_filters)
        self.decode1 = DecoderBlock(num_filters)
        self.classifier = nn.Conv2d(num_filters, num_classes, kernel_size=1)

    def forward(self, x):
        e1, out1, ind1 = self.encode1(x)
        e2, out2, ind2 = self.encode2(e1)
        bn = self.bottleneck(e2)
        d2 = self.decode2(bn, out2, ind2)
        d1 = self.decode1(d2, out1, ind1)
        return self.classifier(d1)

    def save(self, path):
        """Save the model to `path` (conventionally ending in .model)."""
        print("Saving model... %s" % path)
        torch.save(self, path)  # expect: TCK402
