from collections import OrderedDict

import torch.nn as nn


class MLP(nn.Module):
    def __init__(self, input_dims, n_hiddens, n_class):
        super().__init__()
        self.input_dims = input_dims
        layers = OrderedDict()
        current = input_dims
        for i, width in enumerate(n_hiddens):
            layers["fc{}".format(i + 1)] = nn.Linear(current, width)
            layers["relu{}".format(i + 1)] = nn.ReLU()
            layers["drop{}".format(i + 1)] = nn.Dropout(0.2)
            current = width
        layers["out"] = nn.Linear(current, n_class)
        self.model = nn.Sequential(layers)

    def forward(self, x):
        return self.model(x.view(x.size(0), -1))


def mnist(input_dims=784, n_hiddens=(256, 256), n_class=10):
    return MLP(input_dims, n_hiddens, n_class)
