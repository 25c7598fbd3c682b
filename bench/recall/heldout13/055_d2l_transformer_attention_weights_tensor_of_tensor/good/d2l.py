"""Shared helpers of the book, re-exported under framework-neutral names."""
import torch

tensor = torch.tensor
stack = torch.stack
reshape = torch.reshape


def try_gpu():
    return torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")
