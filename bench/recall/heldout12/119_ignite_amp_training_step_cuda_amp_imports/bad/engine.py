"""Minimal Ignite-style supervised trainer factory with an AMP mode."""
from typing import Callable, Optional, Union

import torch


class Engine:
    def __init__(self, process_function: Callable):
        self._process_function = process_function
        self.iteration = 0
        self.scaler = None

    def run(self, data, max_epochs: int = 1):
        for _ in range(max_epochs):
            for batch in data:
                self.iteration += 1
                output = self._process_function(self, batch)
            print(f"iteration {self.iteration}: loss {output:.4f}")


def _prepare_batch(batch, device=None, non_blocking=False):
    x, y = batch
    return x.to(device, non_blocking=non_blocking), y.to(device, non_blocking=non_blocking)


def supervised_training_step_amp(model, optimizer, loss_fn, device=None, scaler=None,
                                 gradient_accumulation_steps: int = 1) -> Callable:
    try:
        from torch.cuda.amp import autocast  # expect: TCK301
    except ImportError:
        raise ImportError("Please install torch>=1.6.0 to use amp_mode='amp'.")

    def update(engine: Engine, batch):
        model.train()
        x, y = _prepare_batch(batch, device=device)
        with autocast(enabled=True):  # expect: TCK301
            y_pred = model(x)
            loss = loss_fn(y_pred, y) / gradient_accumulation_steps
        if scaler:
            scaler.scale(loss).backward()
            if engine.iteration % gradient_accumulation_steps == 0:
                scaler.step(optimizer)
                scaler.update()
                optimizer.zero_grad()
        else:
            loss.backward()
            if engine.iteration % gradient_accumulation_steps == 0:
                optimizer.step()
                optimizer.zero_grad()
        return loss.item()

    return update


def _check_scaler(amp_mode: Optional[str], scaler: Union[bool, object]):
    if scaler and amp_mode != "amp":
        raise ValueError(f"scaler argument is {scaler}, but amp_mode is {amp_mode}.")
    if amp_mode == "amp" and isinstance(scaler, bool) and scaler:
        try:
            from torch.cuda.amp import GradScaler  # expect: TCK301
        except ImportError:
            raise ImportError("Please install torch>=1.6.0 to use scaler argument.")
        scaler = GradScaler(enabled=True)  # expect: TCK301
    return scaler or None


def create_supervised_trainer(model, optimizer, loss_fn, device=None, amp_mode: Optional[str] = None,
                              scaler: Union[bool, object] = False, gradient_accumulation_steps: int = 1) -> Engine:
    _scaler = _check_scaler(amp_mode, scaler)
    if amp_mode == "amp":
        update = supervised_training_step_amp(model, optimizer, loss_fn, device, _scaler,
                                              gradient_accumulation_steps)
    else:
        def update(engine, batch):
            model.train()
            x, y = _prepare_batch(batch, device=device)
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            return loss.item()
    trainer = Engine(update)
    trainer.scaler = _scaler
    return trainer
