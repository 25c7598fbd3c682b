"""Trainer for interatomic potentials: optimizer/scheduler set-up, batch and epoch steps, checkpoints."""
import contextlib
import logging
from copy import deepcopy
from typing import Optional

import torch

from nequip.data import AtomicData, AtomicDataDict
from nequip.utils import Output, atomic_write, instantiate_from_cls_name

from .loss import Loss


class Trainer:
    def __init__(
        self,
        model,
        run_name: Optional[str] = None,
        root: Optional[str] = None,
        seed: Optional[int] = None,
        loss_coeffs=AtomicDataDict.TOTAL_ENERGY_KEY,
        max_epochs: int = 1000000,
        learning_rate: float = 1e-2,
        optim=None,
        optimizer_name: str = "Adam",
        optimizer_kwargs: Optional[dict] = None,
        max_gradient_norm: float = float("inf"),
        use_ema: bool = False,
        save_checkpoint_freq: int = -1,
        save_ema_checkpoint_freq: int = -1,
        log_epoch_freq: int = 1,
        **kwargs,
    ):
        self.root = root
        self.model = model
        self.optim = optim
        self.run_name = run_name
        self.seed = seed
        self.loss_coeffs = loss_coeffs
        self.max_epochs = max_epochs
        self.learning_rate = learning_rate
        self.optimizer_name = optimizer_name
        self.optimizer_kwargs = deepcopy(optimizer_kwargs or {})
        self.max_gradient_norm = max_gradient_norm
        self.use_ema = use_ema
        self.save_checkpoint_freq = save_checkpoint_freq
        self.save_ema_checkpoint_freq = save_ema_checkpoint_freq
        self.log_epoch_freq = log_epoch_freq
        self.kwargs = deepcopy(kwargs)
        self.device = kwargs.get("device", torch.device("cuda" if torch.cuda.is_available() else "cpu"))
        self.output = Output.get_output(run_name, root=root)
        self.best_model_path = self.output.generate_file("best_model.pth")
        self.last_model_path = self.output.generate_file("last_model.pth")
        self.best_val_metrics = float("inf")
        self.best_epoch = 0
        self.iepoch = 0
        self.model.to(self.device)

    def init(self):
        """Build the optimizer (and the EMA of the weights) from their names."""
        if self.optim is None:
            self.optim, self.optimizer_kwargs = instantiate_from_cls_name(
                module=torch.optim,
                class_name=self.optimizer_name,
                prefix="optimizer",
                positional_args=dict(params=self.model.parameters(), lr=self.learning_rate),
                optional_args=self.optimizer_kwargs,
            )
        if self.use_ema:
            from torch_ema import ExponentialMovingAverage

            self.ema = ExponentialMovingAverage(self.model.parameters(), decay=0.999)
        self.loss = Loss(coeffs=self.loss_coeffs)

    def batch_step(self, data, validation=False):
        self.optim.zero_grad(set_to_none=True)
        if validation:
            self.model.eval()
        else:
            self.model.train()
        data = AtomicData.to_AtomicDataDict(data.to(self.device))
        data_unscaled = self.model.unscale(data) if hasattr(self.model, "unscale") else data
        out = self.model(data_unscaled.copy())
        if not validation:
            loss, _ = self.loss(pred=out, ref=data_unscaled)
            self.optim.zero_grad(set_to_none=True)
            loss.backward()
            if self.max_gradient_norm < float("inf"):
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.max_gradient_norm)
            self.optim.step()
            if self.use_ema:
                self.ema.update()
            return loss.item()
        with torch.no_grad():
            loss, _ = self.loss(pred=out, ref=data_unscaled)
        return loss.item()

    def train(self, dl_train, dl_val):
        self.init()
        while self.iepoch < self.max_epochs:
            for batch in dl_train:
                self.batch_step(batch)
            with torch.no_grad():
                val_losses = [self.batch_step(batch, validation=True) for batch in dl_val]
            self.val_metric = sum(val_losses) / max(len(val_losses), 1)
            self.end_of_epoch_save()
            self.iepoch += 1
        self.save_model(self.last_model_path)

    def end_of_epoch_save(self):
        if self.val_metric < self.best_val_metrics:
            self.best_val_metrics = self.val_metric
            self.best_epoch = self.iepoch
            self.save_ema_model(self.best_model_path)
            logging.info(f"! Best model {self.best_epoch:8d} {self.best_val_metrics:8.3f}")
        if self.save_checkpoint_freq > 0 and (self.iepoch + 1) % self.save_checkpoint_freq == 0:
            self.save_model(self.output.generate_file(f"ckpt{self.iepoch + 1}.pth"))
        if self.save_ema_checkpoint_freq > 0 and (self.iepoch + 1) % self.save_ema_checkpoint_freq == 0:
            self.save_ema_model(self.output.generate_file(f"ckpt_ema_{self.iepoch + 1}.pth"))

    def save_ema_model(self, path):
        # with EMA, store the averaged weights that earned the validation score
        cm = self.ema.average_parameters() if self.use_ema else contextlib.nullcontext()
        with cm:
            self.save_model(path)

    def save_model(self, path):
        with atomic_write(path) as write_to:
            if self.kwargs.get("compile_model", False):
                torch.jit.save(self.model, write_to)
            else:
                torch.save(self.model.state_dict(), write_to)
