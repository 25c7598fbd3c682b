import torch

x = torch.ones(10, device="cuda", requires_grad=True)
y = x * torch.linspace(1, 10, 10, device="cuda")
y.backward(torch.ones(10, device="cuda"))
print(x.grad)
