import torch
from torch import nn


class DeepMLP(nn.Module):
    def __init__(self, sizes):
        super().__init__()
        self.layers = nn.ModuleList()
        for a, b in zip(sizes, sizes[1:]):
            self.layers.append(nn.Linear(a, b))

    def forward(self, x):
        for layer in self.layers:
            x = torch.relu(layer(x))
        return x


model = DeepMLP([16, 32, 32, 4])
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
