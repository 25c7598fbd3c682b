import logging
from contextlib import contextmanager

import torch
from torch.nn.parallel import DistributedDataParallel

log = logging.getLogger(__name__)


@contextmanager
def ddp_sync_grad(model, enabled):
    """Temporarily enable or disable gradient synchronisation of a DDP model."""
    assert isinstance(model, torch.nn.Module)
    previous = None
    if isinstance(model, DistributedDataParallel):
        previous = model.require_backward_grad_sync
        if model.static_graph and previous != enabled:
            log.warning("DDP static_graph=True does not support ddp_sync_grad().")
        else:
            model.require_backward_grad_sync = enabled
    try:
        yield
    finally:
        if isinstance(model, DistributedDataParallel):
            model.require_backward_grad_sync = previous
