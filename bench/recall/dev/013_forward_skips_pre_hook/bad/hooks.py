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
out_direct = model.forward(x)  # expect: TCK105
out_called = model(x)
print(out_direct, out_called)
