import logging
from typing import Optional

import torch
from transformers.utils import cached_file

V_HEAD_WEIGHTS_NAME = "value_head.bin"
V_HEAD_SAFE_WEIGHTS_NAME = "value_head.safetensors"

logger = logging.getLogger(__name__)


def load_valuehead_params(path_or_repo_id: str, cache_dir: Optional[str] = None, token: Optional[str] = None):
    """Load the value head of a reward model from a local folder or a Hub repository.

    Returns None if the head cannot be found (the caller then initialises a fresh one).
    """
    kwargs = {"path_or_repo_id": path_or_repo_id, "cache_dir": cache_dir, "token": token}
    err_text = ""

    try:
        from safetensors import safe_open

        vhead_file = cached_file(filename=V_HEAD_SAFE_WEIGHTS_NAME, **kwargs)
        with safe_open(vhead_file, framework="pt", device="cpu") as f:
            return {key: f.get_tensor(key) for key in f.keys()}
    except Exception as err:
        err_text = str(err)

    try:
        vhead_file = cached_file(filename=V_HEAD_WEIGHTS_NAME, **kwargs)
        return torch.load(vhead_file, map_location="cpu")  # expect: TCK401
    except Exception as err:
        err_text = str(err)

    logger.info("Provided path (%s) does not contain value head weights: %s.", path_or_repo_id, err_text)
    logger.info("Ignore the above message if you are not resuming the training of a value head model.")
    return None


def attach_value_head(model, path_or_repo_id: str):
    vhead_params = load_valuehead_params(path_or_repo_id)
    if vhead_params is not None:
        model.load_state_dict(vhead_params, strict=False)
        logger.info("Loaded valuehead from checkpoint: %s", path_or_repo_id)
    return model
