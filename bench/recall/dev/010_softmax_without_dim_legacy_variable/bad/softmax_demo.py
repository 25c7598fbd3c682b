import torch
import torch.nn.functional as F
from torch import autograd, nn

softmax = nn.Softmax()  # expect: TCK608
scores = autograd.Variable(torch.randn(2, 3))  # expect: TCK703
print(softmax(scores))

grid = torch.Tensor([[1, 2, 3, 4], [1, 2, 3, 4], [1, 2, 3, 4]])  # expect: TCK703
print(F.softmax(grid, dim=0))
print(F.softmax(grid, dim=1))
