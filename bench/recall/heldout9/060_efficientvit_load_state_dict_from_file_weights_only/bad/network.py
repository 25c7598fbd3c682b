import os

import torch
import torch.nn as nn


def is_parallel(model: nn.Module) -> bool:
    return isinstance(model, (nn.parallel.DataParallel, nn.parallel.DistributedDataParallel))


def load_state_dict_from_file(file: str, only_state_dict=True) -> dict[str, torch.Tensor]:
    file = os.path.realpath(os.path.expanduser(file))
    checkpoint = torch.load(file, map_location="cpu")  # expect: TCK401
    if only_state_dict and "state_dict" in checkpoint:
        checkpoint = checkpoint["state_dict"]
    return checkpoint


def load_pretrained(model: nn.Module, weight_url: str) -> nn.Module:
    weight = load_state_dict_from_file(weight_url)
    target = model.module if is_parallel(model) else model
    target.load_state_dict(weight)
    return model
