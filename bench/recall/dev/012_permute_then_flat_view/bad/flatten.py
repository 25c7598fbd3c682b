import torch

x = torch.randn(2, 3, 2)
flat = x.permute(0, 2, 1).view(-1)  # expect: TCK705
print(flat.shape)
