"""General purpose trainer for TTS / vocoder models (single or multiple optimizers, optional AMP)."""
import logging
import os

import torch
from coqpit import Coqpit
from torch import nn

from trainer.generic_utils import is_pytorch_at_least_2_4
from trainer.io import load_fsspec

logger = logging.getLogger("trainer")


class Trainer:
    def __init__(self, args, config: Coqpit, output_path: str, model: nn.Module, train_samples=None,
                 eval_samples=None):
        self.args = args
        self.config = config
        self.output_path = output_path
        self.model = model
        self.train_samples = train_samples
        self.eval_samples = eval_samples
        self.use_cuda = torch.cuda.is_available()
        self.restore_step = 0
        self.restore_epoch = 0
        self.use_amp_scaler = self.config.mixed_precision and self.use_cuda and self.config.precision == "fp16"

        self.optimizer = self.get_optimizer(self.model, self.config)
        if self.use_amp_scaler:
            self.scaler = torch.cuda.amp.GradScaler()  # expect: TCK301
        else:
            self.scaler = None

        if args.restore_path:
            (self.model, self.optimizer, self.scaler, self.restore_step, self.restore_epoch) = self.restore_model(
                self.config, args.restore_path, self.model, self.optimizer, self.scaler
            )
            self.scaler = torch.cuda.amp.GradScaler()  # expect: TCK301

    @staticmethod
    def get_optimizer(model, config):
        optimizer = model.get_optimizer() if hasattr(model, "get_optimizer") else None
        if optimizer is None:
            optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr, **(config.optimizer_params or {}))
        return optimizer

    def restore_model(self, config, restore_path, model, optimizer, scaler=None):
        """Restore model, optimizer, AMP scaler and training counters from an old run."""
        logger.info(" > Restoring from %s ...", os.path.basename(restore_path))
        checkpoint = load_fsspec(restore_path, map_location="cpu")
        model.load_state_dict(checkpoint["model"])
        if "optimizer" in checkpoint:
            optimizer.load_state_dict(checkpoint["optimizer"])
        if "scaler" in checkpoint and self.use_amp_scaler and checkpoint["scaler"]:
            scaler.load_state_dict(checkpoint["scaler"])
        return model, optimizer, scaler, checkpoint["step"], checkpoint["epoch"]

    def _get_autocast_args(self, mixed_precision: bool, precision: str):
        device = "cpu"
        dtype = torch.get_autocast_dtype("cpu") if is_pytorch_at_least_2_4() else torch.get_autocast_cpu_dtype()
        if self.use_cuda:
            device = "cuda"
            dtype = torch.float32
            if mixed_precision:
                if precision == "fp16":
                    dtype = torch.float16
                elif precision == "bf16":
                    dtype = torch.bfloat16
                else:
                    raise ValueError(f"Unknown precision {precision}")
        elif mixed_precision:
            dtype = torch.bfloat16
        return device, dtype

    def optimize(self, batch, grad_clip=0.0):
        device, dtype = self._get_autocast_args(self.config.mixed_precision, self.config.precision)
        with torch.autocast(device_type=device, dtype=dtype, enabled=self.config.mixed_precision):
            outputs, loss_dict = self.model.train_step(batch)
        self.optimizer.zero_grad()
        if self.use_amp_scaler:
            self.scaler.scale(loss_dict["loss"]).backward()
            if grad_clip > 0:
                self.scaler.unscale_(self.optimizer)
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), grad_clip)
            self.scaler.step(self.optimizer)
            self.scaler.update()
        else:
            loss_dict["loss"].backward()
            if grad_clip > 0:
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), grad_clip)
            self.optimizer.step()
        return outputs, loss_dict
