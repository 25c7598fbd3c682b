import torch
from torch import nn


def xavier(m):
    if type(m) == nn.Linear:
        torch.nn.init.xavier_uniform_(m.weight)


net = nn.Sequential(nn.Linear(20, 256), nn.ReLU(), nn.Linear(256, 10))
net.apply(xavier)
X = torch.rand(2, 20)
print(net(X))
