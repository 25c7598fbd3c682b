import torch
from torch import nn


class Doubler(nn.Module):
    def forward(self, x):
        return x * 2


def add_one(module, inputs):
    return (inputs[0] + 1,)


model = Doubler()
model.register_forward_pre_hook(add_one)
x = torch.tensor([1.0])
out_first = model(x)
out_second = model(x)
print(out_first, out_second)
