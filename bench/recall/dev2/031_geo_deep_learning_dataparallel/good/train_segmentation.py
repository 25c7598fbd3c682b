import os

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel


def set_hyperparameters(params, num_classes, model, checkpoint, gpu_devices_dict):
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    distributed = int(os.environ.get("WORLD_SIZE", 1)) > 1
    device = torch.device(f"cuda:{local_rank}" if torch.cuda.is_available() else "cpu")
    model = model.to(device)
    if distributed:
        dist.init_process_group("nccl")
        model = DistributedDataParallel(model, device_ids=[local_rank])
    optimizer = torch.optim.Adam(model.parameters(), lr=params["learning_rate"])
    criterion = nn.CrossEntropyLoss(ignore_index=params.get("ignore_index", -1))
    return model, optimizer, criterion, device
