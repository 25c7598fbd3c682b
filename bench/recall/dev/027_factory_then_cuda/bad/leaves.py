import torch

d = torch.rand(10).cuda()  # expect: TCK201
weights = torch.zeros(10, device="cuda", requires_grad=True)
print(d.is_leaf, (d * weights).sum())
