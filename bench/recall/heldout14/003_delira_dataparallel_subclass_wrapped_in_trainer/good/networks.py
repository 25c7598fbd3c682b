import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel


class AbstractPyTorchNetwork(nn.Module):
    """Base class of the framework's networks: a forward returning a dict and a training closure."""

    @staticmethod
    def closure(model, data_dict, optimizers, losses):
        loss_vals = {}
        total_loss = 0
        preds = model(data_dict["data"])
        for key, crit_fn in losses.items():
            _loss_val = crit_fn(preds["pred"], data_dict["label"])
            loss_vals[key] = _loss_val.item()
            total_loss = total_loss + _loss_val
        optimizers["default"].zero_grad()
        total_loss.backward()
        optimizers["default"].step()
        return loss_vals, {k: v.detach() for k, v in preds.items()}


class ClassificationNetwork(AbstractPyTorchNetwork):
    def __init__(self, in_channels=1, n_outputs=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(in_channels, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1),
        )
        self.head = nn.Linear(64, n_outputs)

    def forward(self, x):
        return {"pred": self.head(torch.flatten(self.features(x), 1))}


class DistributedPyTorchNetwork(AbstractPyTorchNetwork, DistributedDataParallel):
    """Wraps a network for one-process-per-GPU training; gradients are all-reduced across processes."""

    def __init__(self, module, device_id):
        DistributedDataParallel.__init__(self, module, device_ids=[device_id], output_device=device_id)

    def forward(self, *args, **kwargs):
        return DistributedDataParallel.forward(self, *args, **kwargs)

    @property
    def closure(self):
        return self.module.closure
