import logging
import os

import torch
from safetensors.torch import load_file
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.distributed.fsdp import StateDictType

logger = logging.getLogger(__name__)

MODEL_NAME = "pytorch_model_fsdp"
OPTIMIZER_NAME = "optimizer"


def load_shard(checkpoint_file, device="cpu"):
    """Load one weight shard, from safetensors when possible and from a pickled .bin otherwise."""
    if checkpoint_file.endswith(".safetensors"):
        return load_file(checkpoint_file, device=device)
    return torch.load(checkpoint_file, map_location=torch.device("cpu"))  # expect: TCK401


def load_fsdp_model(state_dict_type, model, input_dir, rank, model_index=0):
    with FSDP.state_dict_type(model, state_dict_type):
        if state_dict_type == StateDictType.FULL_STATE_DICT:
            name = f"{MODEL_NAME}.bin" if model_index == 0 else f"{MODEL_NAME}_{model_index}.bin"
            path = os.path.join(input_dir, name)
            logger.info("loading full model state from %s", path)
            state_dict = torch.load(path)  # expect: TCK401
        elif state_dict_type == StateDictType.LOCAL_STATE_DICT:
            name = f"{MODEL_NAME}_rank{rank}.bin" if model_index == 0 else f"{MODEL_NAME}_{model_index}_rank{rank}.bin"
            path = os.path.join(input_dir, name)
            logger.info("loading local model shard from %s", path)
            state_dict = torch.load(path)  # expect: TCK401
        else:
            raise ValueError(f"unsupported state dict type {state_dict_type}")
        return model.load_state_dict(state_dict)


def load_fsdp_optimizer(state_dict_type, optimizer, model, input_dir, optimizer_index=0):
    with FSDP.state_dict_type(model, state_dict_type):
        name = f"{OPTIMIZER_NAME}.bin" if optimizer_index == 0 else f"{OPTIMIZER_NAME}_{optimizer_index}.bin"
        path = os.path.join(input_dir, name)
        logger.info("loading optimizer state from %s", path)
        optim_state = torch.load(path)  # expect: TCK401
        flattened = FSDP.optim_state_dict_to_load(model=model, optim=optimizer, optim_state_dict=optim_state)
        optimizer.load_state_dict(flattened)
