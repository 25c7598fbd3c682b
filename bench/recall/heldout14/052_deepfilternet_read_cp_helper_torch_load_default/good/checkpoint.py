import glob
import os

import torch
from torch import nn


def get_epoch(path):
    return int(os.path.splitext(os.path.basename(path))[0].split("_")[-1])


def read_cp(obj, name, dirname, extension="ckpt"):
    checkpoints = glob.glob(os.path.join(dirname, f"{name}*.{extension}"))
    if not checkpoints:
        return None
    latest = max(checkpoints, key=get_epoch)
    epoch = get_epoch(latest)
    state = torch.load(latest, map_location="cpu", weights_only=False)
    if isinstance(obj, nn.Module):
        missing, unexpected = obj.load_state_dict(state, strict=False)
        for key in missing:
            print(f"missing key: {key}")
        for key in unexpected:
            print(f"unexpected key: {key}")
        return epoch
    obj.load_state_dict(state)
    return epoch


def write_cp(obj, name, dirname, epoch, extension="ckpt", keep=5):
    os.makedirs(dirname, exist_ok=True)
    torch.save(obj.state_dict(), os.path.join(dirname, f"{name}_{epoch}.{extension}"))
    old = sorted(glob.glob(os.path.join(dirname, f"{name}*.{extension}")), key=get_epoch, reverse=True)
    for path in old[keep:]:
        os.remove(path)
