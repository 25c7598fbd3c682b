import logging
import os
from collections import OrderedDict

import torch

_logger = logging.getLogger(__name__)


def clean_state_dict(state_dict):
    return OrderedDict((k[7:] if k.startswith("module.") else k, v) for k, v in state_dict.items())


def load_state_dict(checkpoint_path, use_ema=True, device="cpu"):
    if checkpoint_path and os.path.isfile(checkpoint_path):
        checkpoint = torch.load(checkpoint_path, map_location=device, weights_only=True)
        state_dict_key = ""
        if isinstance(checkpoint, dict):
            if use_ema and checkpoint.get("state_dict_ema", None) is not None:
                state_dict_key = "state_dict_ema"
            elif "state_dict" in checkpoint:
                state_dict_key = "state_dict"
        state_dict = clean_state_dict(checkpoint[state_dict_key] if state_dict_key else checkpoint)
        _logger.info("Loaded {} from checkpoint '{}'".format(state_dict_key, checkpoint_path))
        return state_dict
    raise FileNotFoundError(checkpoint_path)


def load_checkpoint(model, checkpoint_path, use_ema=True, device="cpu", strict=True):
    state_dict = load_state_dict(checkpoint_path, use_ema, device=device)
    return model.load_state_dict(state_dict, strict=strict)
