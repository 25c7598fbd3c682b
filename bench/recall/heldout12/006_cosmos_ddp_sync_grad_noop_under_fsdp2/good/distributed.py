import logging
from contextlib import contextmanager

import torch
from torch.distributed.fsdp import FSDPModule
from torch.nn.parallel import DistributedDataParallel

log = logging.getLogger(__name__)


@contextmanager
def ddp_sync_grad(model, enabled):
    """Temporarily enable or disable gradient synchronisation of a DDP or FSDP2 model."""
    assert isinstance(model, torch.nn.Module)
    previous = None
    fsdp_modules = []
    if isinstance(model, DistributedDataParallel):
        previous = model.require_backward_grad_sync
        if model.static_graph and previous != enabled:
            log.warning("DDP static_graph=True does not support ddp_sync_grad().")
        else:
            model.require_backward_grad_sync = enabled
    else:
        # FSDP2 (HSDP): defer only the cross-replica all-reduce; the intra-node
        # reduce-scatter still runs so gradients stay sharded.
        fsdp_modules = [m for m in model.modules() if isinstance(m, FSDPModule)]
        for module in fsdp_modules:
            module.set_requires_all_reduce(enabled, recurse=False)
    try:
        yield
    finally:
        if isinstance(model, DistributedDataParallel):
            model.require_backward_grad_sync = previous
        for module in fsdp_modules:
            module.set_requires_all_reduce(True, recurse=False)
