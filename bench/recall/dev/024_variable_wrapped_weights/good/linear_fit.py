import torch
import torch.optim as optim


def linear_model(x, W, b):
    return torch.matmul(x, W) + b


data = torch.randn(16, 4)
targets = torch.randn(16, 3)
W = torch.randn(4, 3, requires_grad=True)
b = torch.randn(3, requires_grad=True)
optimizer = optim.Adam([W, b])
for sample, target in zip(data, targets):
    optimizer.zero_grad()
    output = linear_model(sample, W, b)
    loss = ((output - target) ** 2).sum()
    loss.backward()
    optimizer.step()
