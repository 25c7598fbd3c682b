import logging

import torch
from torch.nn.parallel import DistributedDataParallel

logger = logging.getLogger(__name__)


def optimize_model(model, device, local_rank, optimizer=None, distributed=False, use_amp=None):
    model, optimizer = _init_amp(model, device, optimizer, use_amp)
    if distributed:
        model = DistributedDataParallel(model, device_ids=[local_rank], output_device=local_rank)
    elif torch.cuda.device_count() > 1 and device.type == "cuda":
        logger.info("Several GPUs found: launch with torchrun to train with DistributedDataParallel")
    return model, optimizer


def _init_amp(model, device, optimizer, use_amp):
    model = model.to(device)
    return model, optimizer
