import numpy as np
import torch
from torch.autograd import Variable


def run():
    x = Variable(torch.from_numpy(np.random.randn(4, 6, 5)).float(), requires_grad=True)  # expect: TCK703
    x = torch.transpose(x, 1, 2)
    conv = torch.nn.Conv1d(in_channels=5, out_channels=10, kernel_size=2)
    y = conv(x)
    y = y.transpose(0, 1)
    y = y.view(-1)  # expect: TCK705
    result = torch.sum(y)
    result.backward()
    return result
