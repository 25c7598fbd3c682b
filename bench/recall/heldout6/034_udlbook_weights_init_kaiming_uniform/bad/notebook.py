import torch
from torch import nn


def weights_init(layer_in):
    if isinstance(layer_in, nn.Linear):
        torch.nn.init.kaiming_uniform(layer_in.weight)  # expect: TCK917
        layer_in.bias.data.fill_(0.0)


model = nn.Sequential(nn.Linear(40, 100), nn.ReLU(), nn.Linear(100, 100), nn.ReLU(), nn.Linear(100, 10))
model.apply(weights_init)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
loss_function = nn.CrossEntropyLoss()
