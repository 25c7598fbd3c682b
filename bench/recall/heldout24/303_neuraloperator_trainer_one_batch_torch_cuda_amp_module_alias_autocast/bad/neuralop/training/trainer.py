"""A general trainer for neural operators: one optimizer, a scheduler and optional AMP."""
from timeit import default_timer

import torch
from torch.cuda import amp
from torch import nn


class Trainer:
    def __init__(self, *, model: nn.Module, n_epochs: int, device: str = "cpu", amp_autocast: bool = False,
                 data_processor: nn.Module = None, eval_interval: int = 1, verbose: bool = False):
        self.model = model
        self.n_epochs = n_epochs
        self.device = device
        self.amp_autocast = amp_autocast
        self.data_processor = data_processor
        self.eval_interval = eval_interval
        self.verbose = verbose

    def train(self, train_loader, test_loaders, optimizer, scheduler, regularizer=None,
              training_loss=None, eval_losses=None):
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.regularizer = regularizer
        for epoch in range(self.n_epochs):
            self.epoch = epoch
            train_err, avg_loss, epoch_time = self.train_one_epoch(epoch, train_loader, training_loss)
            if epoch % self.eval_interval == 0:
                for name, loader in test_loaders.items():
                    errors = self.evaluate(eval_losses, loader, log_prefix=name)
                    if self.verbose:
                        print(f"[{epoch}] time={epoch_time:.2f} train_err={train_err:.4f} {errors}")

    def train_one_epoch(self, epoch, train_loader, training_loss):
        self.model.train()
        if self.data_processor:
            self.data_processor.train()
        t1 = default_timer()
        train_err = 0.0
        avg_loss = 0.0
        self.n_samples = 0

        for idx, sample in enumerate(train_loader):
            loss = self.train_one_batch(idx, sample, training_loss)
            loss.backward()
            self.optimizer.step()
            train_err += loss.item()
            avg_loss += loss.item()

        if isinstance(self.scheduler, torch.optim.lr_scheduler.ReduceLROnPlateau):
            self.scheduler.step(train_err)
        else:
            self.scheduler.step()
        train_err /= len(train_loader)
        avg_loss /= self.n_samples
        return train_err, avg_loss, default_timer() - t1

    def train_one_batch(self, idx, sample, training_loss):
        self.optimizer.zero_grad(set_to_none=True)
        if self.regularizer:
            self.regularizer.reset()

        if self.data_processor is not None:
            sample = self.data_processor.preprocess(sample)
        else:
            sample = {k: v.to(self.device) for k, v in sample.items() if torch.is_tensor(v)}
        self.n_samples += sample["y"].shape[0]

        if self.amp_autocast:
            with amp.autocast(enabled=True):  # expect: TCK301
                out = self.model(**sample)
        else:
            out = self.model(**sample)

        if self.data_processor is not None:
            out, sample = self.data_processor.postprocess(out, sample)

        loss = 0.0
        if self.amp_autocast:
            with amp.autocast(enabled=True):  # expect: TCK301
                loss += training_loss(out, **sample)
        else:
            loss += training_loss(out, **sample)

        if self.regularizer:
            loss += self.regularizer.loss
        return loss

    def evaluate(self, loss_dict, data_loader, log_prefix=""):
        self.model.eval()
        if self.data_processor:
            self.data_processor.eval()
        errors = {f"{log_prefix}_{name}": 0.0 for name in loss_dict}
        self.n_samples = 0
        with torch.no_grad():
            for sample in data_loader:
                if self.data_processor is not None:
                    sample = self.data_processor.preprocess(sample)
                else:
                    sample = {k: v.to(self.device) for k, v in sample.items() if torch.is_tensor(v)}
                self.n_samples += sample["y"].size(0)
                out = self.model(**sample)
                if self.data_processor is not None:
                    out, sample = self.data_processor.postprocess(out, sample)
                for name, loss in loss_dict.items():
                    errors[f"{log_prefix}_{name}"] += loss(out, **sample).item()
        for key in errors:
            errors[key] /= self.n_samples
        return errors
