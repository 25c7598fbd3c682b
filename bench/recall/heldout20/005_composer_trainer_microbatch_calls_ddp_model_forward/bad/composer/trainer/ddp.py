import contextlib

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel


def _prepare_ddp_module(module: torch.nn.Module, find_unused_parameters: bool) -> torch.nn.Module:
    if dist.is_available() and dist.is_initialized():
        if any(p.requires_grad for p in module.parameters()):
            return DistributedDataParallel(module, find_unused_parameters=find_unused_parameters)
    return module


@contextlib.contextmanager
def _ddp_sync_context(state, is_final_microbatch: bool):
    if not state.is_model_ddp or is_final_microbatch:
        yield
    else:
        with state.model.no_sync():
            yield
