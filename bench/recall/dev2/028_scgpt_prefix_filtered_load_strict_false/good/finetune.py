import logging

import torch

logger = logging.getLogger(__name__)


def load_pretrained(model, model_file, load_param_prefixs):
    model_dict = model.state_dict()
    pretrained_dict = torch.load(model_file, weights_only=True)
    pretrained_dict = {
        k: v
        for k, v in pretrained_dict.items()
        if any([k.startswith(prefix) for prefix in load_param_prefixs])
    }
    for k, v in pretrained_dict.items():
        logger.info(f"Loading params {k} with shape {v.shape}")
    model_dict.update(pretrained_dict)
    result = model.load_state_dict(model_dict, strict=False)
    if result.unexpected_keys:
        raise RuntimeError(f"pretrained keys not in the model: {result.unexpected_keys}")
    return model
