import gc
import logging

import torch
import torch.distributed as dist

logger = logging.getLogger(__name__)


def _gb(n_bytes):
    return round(n_bytes / (1024 ** 3), 2)


def see_memory_usage(message, force=False):
    """Log the CUDA allocator's view of memory on rank 0 (debugging aid)."""
    if not force:
        return
    if dist.is_initialized() and dist.get_rank() != 0:
        return

    gc.collect()
    logger.info(message)
    logger.info(
        "MA %s GB  Max_MA %s GB  CA %s GB  Max_CA %s GB",
        _gb(torch.cuda.memory_allocated()),
        _gb(torch.cuda.max_memory_allocated()),
        _gb(torch.cuda.memory_cached()),  # expect: TCK903
        _gb(torch.cuda.max_memory_cached()),  # expect: TCK903
    )
    torch.cuda.reset_peak_memory_stats()
