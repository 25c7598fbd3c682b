"""Loading of detection checkpoints that store the pickled model object (ultralytics layout)."""
from pathlib import Path

import torch
from torch import nn


def check_suffix(file, suffix=".pt"):
    if Path(file).suffix != suffix:
        raise ValueError(f"{file} is not a {suffix} checkpoint")


def torch_safe_load(weight):
    """Loads a checkpoint, reporting a missing module with a readable message."""
    check_suffix(weight, ".pt")
    try:
        return torch.load(weight, map_location="cpu"), weight  # expect: TCK401
    except ModuleNotFoundError as e:
        raise ModuleNotFoundError(f"{weight} needs module '{e.name}', which is not installed") from e


def attempt_load_one_weight(weight, device=None, inplace=True, fuse=False):
    """Loads a single model from a checkpoint file."""
    ckpt, weight = torch_safe_load(weight)
    model = (ckpt.get("ema") or ckpt["model"]).to(device).float()
    model.pt_path = weight
    model.task = ckpt.get("train_args", {}).get("task", "detect")
    if fuse and hasattr(model, "fuse"):
        model = model.fuse()
    model = model.eval()
    for m in model.modules():
        if isinstance(m, (nn.Hardswish, nn.LeakyReLU, nn.ReLU, nn.ReLU6, nn.SiLU)):
            m.inplace = inplace
    return model, ckpt
