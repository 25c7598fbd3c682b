import sys

import torch
from torch import nn

gpus = [int(g) for g in sys.argv[1].split(",")]


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.alpha = nn.ParameterList()
        for i in range(4):
            self.alpha.append(nn.Parameter(1e-3 * torch.randn(i + 2, 5)))
        self.cnn = nn.Conv2d(1, 1, 1, 1, 1)

    def forward(self, x):
        return x * sum(a.sum() for a in self.alpha)


if __name__ == "__main__":
    net = Net().cuda()
    if len(gpus) > 1:
        net = nn.DataParallel(net, device_ids=gpus)  # expect: TCK204
    print(net(torch.rand(4, 5)))
