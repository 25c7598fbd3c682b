"""Parallel helpers: a DataParallel that can tell the replicas about a callback."""
import torch
from torch.nn.parallel import DataParallel as _DataParallel
from torch.nn.parallel.replicate import replicate as _replicate


def replicate(network, devices, detach=False):
    return _replicate(network, devices, detach=detach)


class DataParallel(_DataParallel):
    """DataParallel whose replicas are detached when gradients are off (search-time evaluation)."""

    def replicate(self, module, device_ids):
        return replicate(module, device_ids, not torch.is_grad_enabled())
