import torch

x = torch.randn(2, 3, 2)
flat = x.permute(0, 2, 1).reshape(-1)
print(flat.shape)
