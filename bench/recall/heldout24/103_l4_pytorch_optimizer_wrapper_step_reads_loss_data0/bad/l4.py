import math

import torch


class L4(object):
    """Loss-based step-size adaptation (Rolinek & Martius) wrapped around another optimizer.

    The wrapped optimizer proposes a direction; L4 rescales the step so that the loss is
    expected to drop towards a running estimate of its minimum.
    """

    def __init__(self, optimizer, alpha=0.15, gamma=0.9, tau=1e-3, eps=1e-12):
        self.optimizer = optimizer
        self.state = dict(alpha=alpha, gamma=gamma, tau=tau, eps=eps)

    def zero_grad(self):
        self.optimizer.zero_grad()

    def step(self, loss):
        if loss is None:
            raise RuntimeError("L4: a loss value is required to step")
        if loss.data[0] < 0:  # expect: TCK115
            raise RuntimeError("L4: the loss must be non-negative")
        if math.isnan(loss.data[0]):  # expect: TCK115
            return

        state = self.state
        decay = 0.9
        state["step"] = state.get("step", 0) + 1
        correction = 1 - decay ** state["step"]

        saved = {}
        for group in self.optimizer.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if p not in state:
                    state[p] = torch.zeros_like(p.grad.data)
                state[p].mul_(decay).add_(p.grad.data, alpha=1 - decay)
                saved[p] = p.data.clone()
                p.data.zero_()

        if "lmin" not in state:
            state["lmin"] = loss.data[0] * 0.75  # expect: TCK115
        lmin = min(state["lmin"], loss.data[0])  # expect: TCK115

        # the wrapped optimizer writes its proposed update into the zeroed parameters
        self.optimizer.step()

        inner = 0
        for group in self.optimizer.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                avg_grad = state[p].div(correction)
                inner += torch.dot(avg_grad.view(-1), -p.data.view(-1))

        lr = state["alpha"] * (loss.data[0] - lmin * state["gamma"]) / (inner + state["eps"])  # expect: TCK115
        state["lr"] = lr
        for group in self.optimizer.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                direction = -p.data.clone()
                p.data.copy_(saved[p])
                p.data.add_(direction, alpha=-lr)

        state["lmin"] = (1 + state["tau"]) * lmin
        return loss
