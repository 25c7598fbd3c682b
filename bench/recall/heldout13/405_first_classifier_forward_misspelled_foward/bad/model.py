import torch
from torch import nn


class FeedForwardNet(nn.Module):
    def __init__(self, in_features=784, hidden=128, classes=10):
        super().__init__()
        self.flatten = nn.Flatten()
        self.hidden = nn.Linear(in_features, hidden)
        self.act = nn.ReLU()
        self.out = nn.Linear(hidden, classes)

    def foward(self, x):  # expect: TCK607
        x = self.flatten(x)
        return self.out(self.act(self.hidden(x)))
