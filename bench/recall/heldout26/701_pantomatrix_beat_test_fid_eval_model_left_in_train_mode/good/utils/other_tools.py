from collections import OrderedDict

import torch
from loguru import logger


def load_checkpoints(model, save_path, load_name="model"):
    """Load a checkpoint saved from a (possibly DataParallel-wrapped) model into `model` in place."""
    states = torch.load(save_path, map_location="cpu", weights_only=True)
    weights = states["model_state"]
    if any(k.startswith("module.") for k in weights):
        weights = OrderedDict((k[len("module."):], v) for k, v in weights.items())
    model.load_state_dict(weights)
    logger.info(f"loaded pretrained checkpoint for {load_name}")
