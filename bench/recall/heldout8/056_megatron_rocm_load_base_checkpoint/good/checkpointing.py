import os
import sys
import types

import torch


def get_checkpoint_name(checkpoints_path, iteration, rank):
    return os.path.join(checkpoints_path, f"iter_{iteration:07d}", f"mp_rank_{rank:02d}", "model_optim_rng.pt")


def _load_base_checkpoint(load_dir, iteration, rank):
    checkpoint_name = get_checkpoint_name(load_dir, iteration, rank)
    try:
        state_dict = torch.load(checkpoint_name, map_location="cpu", weights_only=False)
    except ModuleNotFoundError:
        # checkpoints written by old releases pickled the fp16 loss scaler module
        legacy = types.ModuleType("fp16.loss_scaler")
        sys.modules["fp16.loss_scaler"] = legacy
        sys.modules["megatron.fp16.loss_scaler"] = legacy
        state_dict = torch.load(checkpoint_name, map_location="cpu", weights_only=False)
        sys.modules.pop("fp16.loss_scaler", None)
        sys.modules.pop("megatron.fp16.loss_scaler", None)
    return state_dict, checkpoint_name


def load_checkpoint(model, optimizer, args):
    state_dict, checkpoint_name = _load_base_checkpoint(args.load, args.iteration, args.rank)
    model.load_state_dict(state_dict["model"])
    if optimizer is not None and not args.no_load_optim:
        optimizer.load_state_dict(state_dict["optimizer"])
    # the checkpoint also carries argparse.Namespace args and RNG states, not only tensors
    return state_dict.get("iteration", 0), state_dict.get("args")
