from typing import Any, Callable, Optional, Sequence, Tuple, Union

import torch


class Engine:
    def __init__(self, process_function: Callable):
        self._process_function = process_function
        self.state = type("State", (), {"iteration": 0, "output": None})()

    def run(self, data, max_epochs: int = 1):
        for _ in range(max_epochs):
            for batch in data:
                self.state.iteration += 1
                self.state.output = self._process_function(self, batch)
        return self.state


def _prepare_batch(batch, device=None, non_blocking=False):
    x, y = batch
    return x.to(device, non_blocking=non_blocking), y.to(device, non_blocking=non_blocking)


def supervised_training_step(model, optimizer, loss_fn, device=None, prepare_batch=_prepare_batch):
    def update(engine: Engine, batch: Sequence[torch.Tensor]) -> Union[Any, Tuple[torch.Tensor]]:
        model.train()
        optimizer.zero_grad()
        x, y = prepare_batch(batch, device=device)
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        return loss.item()

    return update


def supervised_training_step_amp(
    model: torch.nn.Module,
    optimizer: torch.optim.Optimizer,
    loss_fn: Callable,
    device: Optional[Union[str, torch.device]] = None,
    prepare_batch: Callable = _prepare_batch,
    scaler: Optional[torch.amp.GradScaler] = None,
    gradient_accumulation_steps: int = 1,
) -> Callable:
    try:
        from torch.amp import autocast
    except ImportError:
        raise ImportError("Please install torch>=1.10.0 to use amp_mode='amp'.")

    def update(engine: Engine, batch: Sequence[torch.Tensor]) -> Union[Any, Tuple[torch.Tensor]]:
        if (engine.state.iteration - 1) % gradient_accumulation_steps == 0:
            optimizer.zero_grad()
        model.train()
        x, y = prepare_batch(batch, device=device)
        with autocast("cuda", enabled=True):
            y_pred = model(x)
            loss = loss_fn(y_pred, y)
            if gradient_accumulation_steps > 1:
                loss = loss / gradient_accumulation_steps
        if scaler:
            scaler.scale(loss).backward()
            if engine.state.iteration % gradient_accumulation_steps == 0:
                scaler.step(optimizer)
                scaler.update()
        else:
            loss.backward()
            if engine.state.iteration % gradient_accumulation_steps == 0:
                optimizer.step()
        return loss.item()

    return update


def create_supervised_trainer(model, optimizer, loss_fn, device=None, amp_mode=None, scaler=False):
    if amp_mode == "amp":
        if isinstance(scaler, bool):
            scaler = torch.amp.GradScaler("cuda", enabled=scaler)
        update = supervised_training_step_amp(model, optimizer, loss_fn, device, scaler=scaler)
    else:
        update = supervised_training_step(model, optimizer, loss_fn, device)
    return Engine(update)
