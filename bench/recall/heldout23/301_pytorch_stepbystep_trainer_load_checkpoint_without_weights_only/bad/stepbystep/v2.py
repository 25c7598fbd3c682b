"""Later version of the training class: adds a scheduler, gradient clipping and hooks."""
import datetime

import numpy as np
import torch
import torch.nn as nn
from torch.utils.tensorboard import SummaryWriter


class StepByStep(object):
    def __init__(self, model, loss_fn, optimizer):
        self.model = model
        self.loss_fn = loss_fn
        self.optimizer = optimizer
        self.device = "cuda" if torch.cuda.is_available() else "cpu"
        self.model.to(self.device)

        self.train_loader = None
        self.val_loader = None
        self.writer = None
        self.scheduler = None
        self.is_batch_lr_scheduler = False
        self.clipping = None

        self.losses = []
        self.val_losses = []
        self.learning_rates = []
        self.total_epochs = 0
        self.handles = {}

        self.train_step_fn = self._make_train_step_fn()
        self.val_step_fn = self._make_val_step_fn()

    def set_loaders(self, train_loader, val_loader=None):
        self.train_loader = train_loader
        self.val_loader = val_loader

    def set_tensorboard(self, name, folder="runs"):
        stamp = datetime.datetime.now().strftime("%Y%m%d%H%M%S")
        self.writer = SummaryWriter(f"{folder}/{name}_{stamp}")

    def set_lr_scheduler(self, scheduler):
        if scheduler.optimizer is self.optimizer:
            self.scheduler = scheduler
            self.is_batch_lr_scheduler = isinstance(
                scheduler, (torch.optim.lr_scheduler.CyclicLR, torch.optim.lr_scheduler.OneCycleLR)
            )

    def set_clip_grad_norm(self, max_norm, norm_type=2):
        self.clipping = lambda: nn.utils.clip_grad_norm_(self.model.parameters(), max_norm, norm_type)

    def remove_clip(self):
        self.clipping = None

    def _make_train_step_fn(self):
        def train_step(x, y):
            self.model.train()
            yhat = self.model(x)
            loss = self.loss_fn(yhat, y)
            loss.backward()
            if callable(self.clipping):
                self.clipping()
            self.optimizer.step()
            self.optimizer.zero_grad()
            return loss.item()

        return train_step

    def _make_val_step_fn(self):
        def val_step(x, y):
            self.model.eval()
            yhat = self.model(x)
            loss = self.loss_fn(yhat, y)
            return loss.item()

        return val_step

    def _mini_batch(self, validation=False):
        loader = self.val_loader if validation else self.train_loader
        step_fn = self.val_step_fn if validation else self.train_step_fn
        if loader is None:
            return None
        n_batches = len(loader)
        batch_losses = []
        for i, (x_batch, y_batch) in enumerate(loader):
            x_batch = x_batch.to(self.device)
            y_batch = y_batch.to(self.device)
            batch_losses.append(step_fn(x_batch, y_batch))
            if not validation and self.scheduler and self.is_batch_lr_scheduler:
                self.scheduler.step()
        return np.mean(batch_losses)

    def set_seed(self, seed=42):
        torch.backends.cudnn.deterministic = True
        torch.backends.cudnn.benchmark = False
        torch.manual_seed(seed)
        np.random.seed(seed)

    def _epoch_schedulers(self, val_loss):
        if self.scheduler and not self.is_batch_lr_scheduler:
            if isinstance(self.scheduler, torch.optim.lr_scheduler.ReduceLROnPlateau):
                self.scheduler.step(val_loss)
            else:
                self.scheduler.step()
        self.learning_rates.append([group["lr"] for group in self.optimizer.param_groups])

    def train(self, n_epochs, seed=42):
        self.set_seed(seed)
        for epoch in range(n_epochs):
            self.total_epochs += 1
            loss = self._mini_batch(validation=False)
            self.losses.append(loss)
            with torch.no_grad():
                val_loss = self._mini_batch(validation=True)
                self.val_losses.append(val_loss)
            self._epoch_schedulers(val_loss)
            if self.writer:
                scalars = {"training": loss}
                if val_loss is not None:
                    scalars["validation"] = val_loss
                self.writer.add_scalars(main_tag="loss", tag_scalar_dict=scalars, global_step=epoch)
        if self.writer:
            self.writer.close()

    def save_checkpoint(self, filename):
        checkpoint = {
            "epoch": self.total_epochs,
            "model_state_dict": self.model.state_dict(),
            "optimizer_state_dict": self.optimizer.state_dict(),
            "loss": self.losses,
            "val_loss": self.val_losses,
        }
        torch.save(checkpoint, filename)

    def load_checkpoint(self, filename):
        checkpoint = torch.load(filename)  # expect: TCK401

        self.model.load_state_dict(checkpoint["model_state_dict"])
        self.optimizer.load_state_dict(checkpoint["optimizer_state_dict"])
        self.total_epochs = checkpoint["epoch"]
        self.losses = checkpoint["loss"]
        self.val_losses = checkpoint["val_loss"]
        self.model.train()

    def attach_hooks(self, layers_to_hook, hook_fn):
        modules = dict(self.model.named_modules())
        for name, layer in modules.items():
            if name in layers_to_hook:
                self.handles[name] = layer.register_forward_hook(hook_fn)

    def remove_hooks(self):
        for handle in self.handles.values():
            handle.remove()
        self.handles = {}
