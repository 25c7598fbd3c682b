import os
import random

import numpy as np
import torch
import torch.distributed as dist

MODEL_NAME = "pytorch_model"
OPTIMIZER_NAME = "optimizer"
SCHEDULER_NAME = "scheduler"
SCALER_NAME = "scaler.pt"
RNG_STATE_NAME = "random_states"


def local_device():
    return torch.device("cuda", int(os.environ.get("LOCAL_RANK", 0)))


def save_state(output_dir, models, optimizers, schedulers, scaler=None):
    """Write one file per object; only the main process writes the shared files."""
    rank = dist.get_rank() if dist.is_initialized() else 0
    os.makedirs(output_dir, exist_ok=True)
    if rank == 0:
        for i, model in enumerate(models):
            name = f"{MODEL_NAME}.bin" if i == 0 else f"{MODEL_NAME}_{i}.bin"
            torch.save(model.state_dict(), os.path.join(output_dir, name))
        for i, opt in enumerate(optimizers):
            optimizer_name = f"{OPTIMIZER_NAME}.bin" if i == 0 else f"{OPTIMIZER_NAME}_{i}.bin"
            torch.save(opt.state_dict(), os.path.join(output_dir, optimizer_name))
        for i, scheduler in enumerate(schedulers):
            scheduler_name = f"{SCHEDULER_NAME}.bin" if i == 0 else f"{SCHEDULER_NAME}_{i}.bin"
            torch.save(scheduler.state_dict(), os.path.join(output_dir, scheduler_name))
        if scaler is not None:
            torch.save(scaler.state_dict(), os.path.join(output_dir, SCALER_NAME))
    states = {
        "random_state": random.getstate(),
        "numpy_random_seed": np.random.get_state(),
        "torch_manual_seed": torch.get_rng_state(),
        "torch_cuda_manual_seed": torch.cuda.get_rng_state_all(),
    }
    torch.save(states, os.path.join(output_dir, f"{RNG_STATE_NAME}_{rank}.pkl"))


def load_state(input_dir, models, optimizers, schedulers, scaler=None, map_location="cpu"):
    """Run by every process when resuming."""
    if map_location == "on_device":
        map_location = local_device()
    for i, model in enumerate(models):
        name = f"{MODEL_NAME}.bin" if i == 0 else f"{MODEL_NAME}_{i}.bin"
        model.load_state_dict(torch.load(os.path.join(input_dir, name), map_location=map_location, weights_only=True))
    for i, opt in enumerate(optimizers):
        optimizer_name = f"{OPTIMIZER_NAME}.bin" if i == 0 else f"{OPTIMIZER_NAME}_{i}.bin"
        input_optimizer_file = os.path.join(input_dir, optimizer_name)
        optimizer_state = torch.load(input_optimizer_file, weights_only=True)  # expect: TCK215
        opt.load_state_dict(optimizer_state)
    for i, scheduler in enumerate(schedulers):
        scheduler_name = f"{SCHEDULER_NAME}.bin" if i == 0 else f"{SCHEDULER_NAME}_{i}.bin"
        scheduler.load_state_dict(torch.load(os.path.join(input_dir, scheduler_name), weights_only=True))
    if scaler is not None:
        scaler.load_state_dict(torch.load(os.path.join(input_dir, SCALER_NAME), weights_only=True))
    rank = dist.get_rank() if dist.is_initialized() else 0
    states = torch.load(os.path.join(input_dir, f"{RNG_STATE_NAME}_{rank}.pkl"), weights_only=False)
    random.setstate(states["random_state"])
    np.random.set_state(states["numpy_random_seed"])
    torch.set_rng_state(states["torch_manual_seed"])
    torch.cuda.set_rng_state_all(states["torch_cuda_manual_seed"])
