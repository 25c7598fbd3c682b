import torch.nn as nn


def make_stage(width=2, depth=3):
    return nn.Sequential(*[nn.Linear(width, width) for _ in range(depth)])
