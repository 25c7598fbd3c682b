import contextlib
import time
from functools import partial
from typing import Callable

import torch


class DefaultTrainer:
    """Segmentation trainer with an optional mixed-precision mode."""

    def __init__(self, model, train_loader, val_loader, loss, metric, optimizer, device,
                 mixed_precision: bool = True, max_iteration: int = 10000):
        self.model = model.to(device)
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.loss = loss
        self.metric = metric
        self.optimizer = optimizer
        self.device = device
        self.max_iteration = max_iteration
        self.mixed_precision = mixed_precision
        self._iteration = 0
        device_type = "cpu" if torch.device(device).type == "cpu" else "cuda"
        self._autocast = partial(torch.autocast, device_type=device_type)
        self.scaler = torch.GradScaler(device_type) if mixed_precision else None

    def fit(self, iterations: int):
        self.max_iteration = iterations
        train_epoch = self._train_epoch_mixed if self.mixed_precision else self._train_epoch
        validate = self._validate_mixed if self.mixed_precision else self._validate
        best = float("inf")
        while self._iteration < self.max_iteration:
            t_per_iter = train_epoch()
            score = validate()
            if score < best:
                best = score
                torch.save({"model_state": self.model.state_dict(),
                            "optimizer_state": self.optimizer.state_dict(),
                            "iteration": self._iteration}, "best.pt")
            print(f"iteration {self._iteration}: {t_per_iter * 1000:.1f} ms/it, val {score:.4f}")

    def _backprop(self, loss):
        loss.backward()
        self.optimizer.step()

    def _backprop_mixed(self, loss):
        self.scaler.scale(loss).backward()
        self.scaler.step(self.optimizer)
        self.scaler.update()

    def _train_epoch(self):
        return self._train_epoch_impl(contextlib.nullcontext, self._backprop)

    def _train_epoch_mixed(self):
        return self._train_epoch_impl(self._autocast, self._backprop_mixed)

    def _train_epoch_impl(self, forward_context, backprop: Callable[[torch.Tensor], None]):
        self.model.train()
        n_iter, t_start = 0, time.time()
        for x, y in self.train_loader:
            x, y = x.to(self.device), y.to(self.device)
            self.optimizer.zero_grad()
            with forward_context():
                pred = self.model(x)
                loss = self.loss(pred, y)
            backprop(loss)
            self._iteration += 1
            n_iter += 1
            if self._iteration >= self.max_iteration:
                break
        return (time.time() - t_start) / max(n_iter, 1)

    def _validate(self):
        return self._validate_impl(contextlib.nullcontext)

    def _validate_mixed(self):
        return self._validate_impl(self._autocast)

    def _validate_impl(self, forward_context):
        self.model.eval()
        total = 0.0
        with torch.no_grad():
            for x, y in self.val_loader:
                x, y = x.to(self.device), y.to(self.device)
                with forward_context():
                    total += self.metric(self.model(x), y).item()
        return total / len(self.val_loader)
