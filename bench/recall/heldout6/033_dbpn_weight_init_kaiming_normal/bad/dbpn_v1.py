import torch
from torch import nn


class Net(nn.Module):
    def __init__(self, num_channels, base_filter, feat, num_stages, scale_factor):
        super().__init__()
        self.feat0 = nn.Conv2d(num_channels, feat, 3, 1, 1)
        self.feat1 = nn.Conv2d(feat, base_filter, 1, 1, 0)
        self.up1 = nn.ConvTranspose2d(base_filter, base_filter, 8, 4, 2)
        self.output_conv = nn.Conv2d(base_filter, num_channels, 3, 1, 1)
        for m in self.modules():
            classname = m.__class__.__name__
            if classname.find("Conv2d") != -1:
                torch.nn.init.kaiming_normal(m.weight)  # expect: TCK917
                if m.bias is not None:
                    m.bias.data.zero_()
            elif classname.find("ConvTranspose2d") != -1:
                torch.nn.init.kaiming_normal(m.weight)  # expect: TCK917
                if m.bias is not None:
                    m.bias.data.zero_()

    def forward(self, x):
        x = torch.relu(self.feat1(torch.relu(self.feat0(x))))
        return self.output_conv(torch.relu(self.up1(x)))
