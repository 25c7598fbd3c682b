from torch import nn


class Model(nn.Module):
    def __init__(self, args, device):
        super().__init__()
        self.device = device
        self.front = nn.Linear(1024, 128)
        self.bn1 = nn.BatchNorm1d(128)
        self.out = nn.Linear(128, 2)

    def forward(self, x):
        return self.out(self.bn1(self.front(x)).relu())
