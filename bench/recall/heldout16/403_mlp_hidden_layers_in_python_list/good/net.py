import torch
from torch import nn


class DeepMLP(nn.Module):
    def __init__(self, in_features, hidden, depth, num_classes):
        super().__init__()
        self.stem = nn.Linear(in_features, hidden)
        self.layers = nn.ModuleList()
        for _ in range(depth):
            self.layers.append(nn.Linear(hidden, hidden))
        self.head = nn.Linear(hidden, num_classes)

    def forward(self, x):
        x = torch.relu(self.stem(x))
        for layer in self.layers:
            x = torch.relu(layer(x))
        return self.head(x)
