import numpy as np
import torch


def run():
    x = torch.from_numpy(np.random.randn(4, 6, 5)).float().requires_grad_()
    x = torch.transpose(x, 1, 2)
    conv = torch.nn.Conv1d(in_channels=5, out_channels=10, kernel_size=2)
    y = conv(x)
    y = y.transpose(0, 1)
    y = y.reshape(-1)
    result = torch.sum(y)
    result.backward()
    return result
