"""Helpers the training entry point uses: model / loss factories, optimizer and scheduler setup."""
import glob
import importlib
import os
import re
from datetime import datetime

import torch
import torch.optim as optim
import yaml


def load_saved_model(saved_path, model):
    """Resume from the newest `net_epochN.pth` under `saved_path`; returns (epoch, model)."""
    assert os.path.exists(saved_path), f"{saved_path} not found"
    found = []
    for path in glob.glob(os.path.join(saved_path, "*epoch*.pth")):
        match = re.findall(r".*epoch(\d+)\.pth", path)
        if match:
            found.append(int(match[0]))
    start = max(found) if found else 0
    if start > 0:
        print(f"resuming by loading epoch {start}")
        state = torch.load(os.path.join(saved_path, f"net_epoch{start}.pth"), map_location="cpu")
        model.load_state_dict(state, strict=False)
    return start, model


def setup_train(hypes):
    """Create a time-stamped log folder and copy the configuration into it."""
    stamp = datetime.now().strftime("_%Y_%m_%d_%H_%M_%S")
    folder = os.path.join(os.path.dirname(__file__), "../logs", hypes["name"] + stamp)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "config.yaml"), "w") as f:
        yaml.dump(hypes, f)
    return folder


def _find_by_name(package, name):
    lib = importlib.import_module(f"{package}.{name}")
    wanted = name.replace("_", "").lower()
    for attr, value in lib.__dict__.items():
        if attr.lower() == wanted:
            return value
    raise ValueError(f"no class matching {name} in {package}")


def create_model(hypes):
    """Instantiate `opencood.models.<core_method>` with its arguments."""
    cls = _find_by_name("opencood.models", hypes["model"]["core_method"])
    return cls(hypes["model"]["args"])


def create_loss(hypes):
    """Instantiate `opencood.loss.<core_method>` with its arguments."""
    cls = _find_by_name("opencood.loss", hypes["loss"]["core_method"])
    return cls(hypes["loss"]["args"])


def setup_optimizer(hypes, model):
    """Build the torch.optim optimizer named in the configuration."""
    cfg = hypes["optimizer"]
    method = getattr(optim, cfg["core_method"], None)
    if method is None:
        raise ValueError(f"{cfg['core_method']} is not supported")
    return method(model.parameters(), lr=cfg["lr"], **cfg.get("args", {}))


def setup_lr_schedular(hypes, optimizer):
    """Build the epoch-based learning-rate scheduler named in the configuration."""
    cfg = hypes["lr_scheduler"]
    if cfg["core_method"] == "step":
        from torch.optim.lr_scheduler import StepLR
        return StepLR(optimizer, step_size=cfg["step_size"], gamma=cfg["gamma"])
    if cfg["core_method"] == "multistep":
        from torch.optim.lr_scheduler import MultiStepLR
        return MultiStepLR(optimizer, milestones=cfg["step_size"], gamma=cfg["gamma"])
    from torch.optim.lr_scheduler import ExponentialLR
    return ExponentialLR(optimizer, cfg["gamma"])


def to_device(inputs, device):
    if isinstance(inputs, list):
        return [to_device(x, device) for x in inputs]
    if isinstance(inputs, dict):
        return {k: to_device(v, device) for k, v in inputs.items()}
    if isinstance(inputs, (int, float, str)):
        return inputs
    return inputs.to(device)
