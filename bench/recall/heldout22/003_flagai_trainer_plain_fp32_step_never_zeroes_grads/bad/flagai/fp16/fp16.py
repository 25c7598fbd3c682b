import torch
import torch.nn as nn

from flagai.fp16.loss_scaler import DynamicLossScaler


class FP16_Module(nn.Module):
    def __init__(self, module):
        super().__init__()
        self.add_module("module", module.half())

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


class FP16_Optimizer:
    """Keeps fp32 master weights for an fp16 model and scales the loss."""

    def __init__(self, init_optimizer, dynamic_loss_scale=True):
        self.optimizer = init_optimizer
        self.loss_scaler = DynamicLossScaler()
        self.fp32_groups = [[p.detach().clone().float().requires_grad_() for p in g["params"]]
                            for g in init_optimizer.param_groups]
        self.param_groups = init_optimizer.param_groups

    def zero_grad(self, set_to_none=True):
        self.optimizer.zero_grad(set_to_none=set_to_none)

    def backward(self, loss, update_master_grads=True, retain_graph=False):
        (loss.float() * self.loss_scaler.cur_scale).backward(retain_graph=retain_graph)
        if update_master_grads:
            self.update_master_grads()

    def update_master_grads(self):
        for group, master in zip(self.optimizer.param_groups, self.fp32_groups):
            for p, m in zip(group["params"], master):
                if p.grad is not None:
                    m.grad = p.grad.float() / self.loss_scaler.cur_scale

    def step(self):
        self.optimizer.step()
