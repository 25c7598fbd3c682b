import torch
from torch.cuda.amp import autocast  # expect: TCK301


class AMPTrainer:
    def __init__(self, model, data_loader, optimizer, grad_scaler, precision=torch.float16):
        self.model = model
        self.data_loader = data_loader
        self._data_loader_iter = iter(data_loader)
        self.optimizer = optimizer
        self.grad_scaler = grad_scaler
        self.precision = precision

    def run_step(self):
        data = next(self._data_loader_iter)
        with autocast(dtype=self.precision):
            loss_dict = self.model(data)
            losses = sum(loss_dict.values())
        self.optimizer.zero_grad()
        self.grad_scaler.scale(losses).backward()
        self.grad_scaler.step(self.optimizer)
        self.grad_scaler.update()
