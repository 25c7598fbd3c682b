import torch

d = torch.rand(10, device="cuda")
weights = torch.zeros(10, device="cuda", requires_grad=True)
print(d.is_leaf, (d * weights).sum())
