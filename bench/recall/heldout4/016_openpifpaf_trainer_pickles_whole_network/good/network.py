import torch.nn as nn


class Shell(nn.Module):
    def __init__(self, base_net, head_nets):
        super().__init__()
        self.base_net = base_net
        self.head_nets = nn.ModuleList(head_nets)

    def forward(self, x):
        x = self.base_net(x)
        return [hn(x) for hn in self.head_nets]
