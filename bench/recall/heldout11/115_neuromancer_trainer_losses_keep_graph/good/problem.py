import torch
import torch.nn as nn


class Problem(nn.Module):
    """Wraps a model and its objective; returns a dict of outputs and named losses."""

    def __init__(self, net, name="problem"):
        super().__init__()
        self.net = net
        self.name = name
        self.grad_inference = False

    def forward(self, batch):
        pred = self.net(batch["x"])
        loss = torch.mean((pred - batch["y"]) ** 2)
        split = batch["name"]
        return {f"{split}_pred": pred, f"{split}_loss": loss}
