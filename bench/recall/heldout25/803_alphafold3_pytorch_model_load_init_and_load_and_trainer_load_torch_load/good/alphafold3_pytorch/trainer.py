"""Fabric-based trainer for Alphafold3 with checkpoint folders and resumable optimizer state."""
from pathlib import Path

import torch
from lightning import Fabric
from torch.optim import Adam
from torch.optim.lr_scheduler import LambdaLR

from .alphafold3 import Alphafold3


def _unwrap_objects(obj):
    return getattr(obj, "_forward_module", obj)


class Trainer:
    def __init__(self, model: Alphafold3, dataloader, num_train_steps, lr=1.8e-3, grad_accum_every=1,
                 checkpoint_folder="./checkpoints", checkpoint_prefix="af3.ckpt.", fabric_kwargs=None):
        self.fabric = Fabric(**(fabric_kwargs or {}))
        self.fabric.launch()
        optimizer = Adam(model.parameters(), lr=lr, betas=(0.9, 0.95), eps=1e-8)
        self.model, self.optimizer = self.fabric.setup(model, optimizer)
        self.dataloader = self.fabric.setup_dataloaders(dataloader)
        self.scheduler = LambdaLR(self.optimizer, lambda step: min(1.0, step / 1000))
        self.num_train_steps = num_train_steps
        self.grad_accum_every = grad_accum_every
        self.checkpoint_folder = Path(checkpoint_folder)
        self.checkpoint_prefix = checkpoint_prefix
        self.steps = 0
        self.train_id = None

    def save(self, path, overwrite=False):
        unwrapped_model = _unwrap_objects(self.model)
        package = dict(model=unwrapped_model.state_dict_with_init_args,
                       optimizer=_unwrap_objects(self.optimizer).state_dict(),
                       scheduler=self.scheduler.state_dict(), steps=self.steps, id=self.train_id)
        torch.save(package, str(path))

    def load(self, path, prefix=None, only_model=False, reset_steps=False):
        path = Path(path)
        assert path.exists(), f"{path} cannot be found for loading"
        if path.is_dir():
            prefix = prefix or self.checkpoint_prefix
            model_paths = sorted(path.glob(f"**/*_{prefix}*.pt"), key=lambda p: int(str(p).split(".")[-2]))
            assert len(model_paths) > 0, f"no files found in directory {path}"
            path = model_paths[-1]

        unwrapped_model = _unwrap_objects(self.model)
        self.train_id = unwrapped_model.load(path)
        if only_model:
            return

        package = torch.load(str(path), weights_only=True)
        if "optimizer" in package:
            _unwrap_objects(self.optimizer).load_state_dict(package["optimizer"])
        if "scheduler" in package:
            self.scheduler.load_state_dict(package["scheduler"])
        self.steps = 0 if reset_steps else package.get("steps", 0)

    def load_from_checkpoint_folder(self, **kwargs):
        self.load(path=self.checkpoint_folder, **kwargs)
