import torch
import torch.nn.functional as F
from torch import nn

softmax = nn.Softmax(dim=1)
scores = torch.randn(2, 3)
print(softmax(scores))

grid = torch.tensor([[1, 2, 3, 4], [1, 2, 3, 4], [1, 2, 3, 4]], dtype=torch.float32)
print(F.softmax(grid, dim=0))
print(F.softmax(grid, dim=1))
