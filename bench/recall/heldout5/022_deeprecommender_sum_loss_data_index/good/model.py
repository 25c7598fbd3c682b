import torch
import torch.nn as nn


def MSEloss(inputs, targets, size_average=False):
    mask = targets != 0
    num_ratings = torch.sum(mask.float())
    criterion = nn.MSELoss(reduction="mean" if size_average else "sum")
    return criterion(inputs * mask.float(), targets), torch.ones(()) if size_average else num_ratings
