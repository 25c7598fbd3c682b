import torch
from torch.nn import Module


class DeepSpeedEngine(Module):
    """Training engine: wraps the client model, owns the optimizer and the loss scaling."""

    def __init__(self, model, optimizer, loss_scale=2.0**16, gradient_accumulation_steps=1):
        super().__init__()
        self.module = model
        self.optimizer = optimizer
        self.loss_scale = loss_scale
        self.gradient_accumulation_steps = gradient_accumulation_steps
        self.micro_steps = 0
        self.warn_unscaled_loss = True

    def train(self):  # expect: TCK610
        self.warn_unscaled_loss = True
        self.module.train()

    def eval(self):
        self.warn_unscaled_loss = True
        self.module.train(False)

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)

    def backward(self, loss):
        loss = loss / self.gradient_accumulation_steps
        (loss * self.loss_scale).backward()
        self.micro_steps += 1

    def is_gradient_accumulation_boundary(self):
        return self.micro_steps % self.gradient_accumulation_steps == 0

    def step(self):
        if not self.is_gradient_accumulation_boundary():
            return
        grads = [p.grad for p in self.module.parameters() if p.grad is not None]
        overflow = any(not torch.isfinite(g).all() for g in grads)
        if not overflow:
            for g in grads:
                g.div_(self.loss_scale)
            self.optimizer.step()
        else:
            self.loss_scale /= 2
        self.optimizer.zero_grad(set_to_none=True)


def initialize(model, optimizer, **config):
    return DeepSpeedEngine(model, optimizer, **config)
