import torch
import torch.nn as nn


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


class DataParallelPyTorchNetwork(AbstractPyTorchNetwork, nn.DataParallel):
    """Wraps a network to split every batch over several GPUs of one machine."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        nn.DataParallel.__init__(self, module, device_ids, output_device, dim)

    def forward(self, *args, **kwargs):
        return nn.DataParallel.forward(self, *args, **kwargs)

    @property
    def closure(self):
        return self.module.closure
