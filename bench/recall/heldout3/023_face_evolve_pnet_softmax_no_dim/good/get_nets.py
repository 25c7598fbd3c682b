import torch.nn as nn
import torch.nn.functional as F


class PNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 10, 3, 1), nn.PReLU(10), nn.MaxPool2d(2, 2, ceil_mode=True),
            nn.Conv2d(10, 16, 3, 1), nn.PReLU(16),
            nn.Conv2d(16, 32, 3, 1), nn.PReLU(32),
        )
        self.conv4_1 = nn.Conv2d(32, 2, 1, 1)
        self.conv4_2 = nn.Conv2d(32, 4, 1, 1)

    def forward(self, x):
        x = self.features(x)
        a = self.conv4_1(x)
        b = self.conv4_2(x)
        a = F.softmax(a, dim=1)
        return b, a
