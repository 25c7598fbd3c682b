import torch
import torch.nn as nn


class MyModule(nn.Module):
    def __init__(self):
        super().__init__()
        self.some_param = nn.Parameter(torch.tensor(1.0))

    def forward(self, x):
        return self.some_param * x


def full_backward_hook(module, grad_input, grad_output):
    print("full_backward_hook called with", module, grad_input, grad_output)


model = MyModule()
model.register_full_backward_hook(full_backward_hook)
print("model.some_param.grad:", model.some_param.grad)
out = model(torch.tensor(5.0))
print("calling backward")
out.backward()
print("model.some_param.grad:", model.some_param.grad)
