import torch

b = torch.rand(10, requires_grad=True, device="cuda")
loss = (b ** 2).sum()
loss.backward()
print(b.is_leaf, b.grad)
