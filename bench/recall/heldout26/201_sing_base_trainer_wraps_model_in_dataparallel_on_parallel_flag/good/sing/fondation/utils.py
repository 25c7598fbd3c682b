import os

import torch


def load_checkpoint(path):
    """Return (last finished epoch, model state) or (-1, None) when there is nothing to resume."""
    if path is None or not os.path.exists(path):
        return -1, None
    saved = torch.load(path, map_location="cpu", weights_only=True)
    return saved["epoch"], saved["state"]


def save_checkpoint(path, epoch, state):
    if path is None:
        return
    tmp = str(path) + ".tmp"
    torch.save({"epoch": epoch, "state": state}, tmp)
    os.replace(tmp, path)


def unpad1d(x, amount):
    if amount == 0:
        return x
    return x[..., amount:-amount]
