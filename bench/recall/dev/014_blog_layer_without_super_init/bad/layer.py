import torch
from torch import nn


class MyLayer(nn.Module):
    def __init__(self):  # expect: TCK603
        self.layer1 = nn.Linear(10, 1)

    def forward(self, input_tensor):
        return self.layer1(input_tensor)


model = MyLayer()
print(model(torch.rand(2, 10)))
