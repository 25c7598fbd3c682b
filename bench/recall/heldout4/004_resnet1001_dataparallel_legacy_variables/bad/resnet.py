import torch.nn as nn


class PreActResNet(nn.Module):
    def __init__(self, depth=1001, num_classes=10):
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 3, padding=1)
        self.body = nn.Sequential(*[nn.Sequential(nn.BatchNorm2d(16), nn.ReLU(), nn.Conv2d(16, 16, 3, padding=1)) for _ in range(depth // 100)])
        self.head = nn.Linear(16, num_classes)

    def forward(self, x):
        x = self.body(self.stem(x))
        return self.head(x.mean(dim=(2, 3)))
