import torch
import torch.distributed as dist


def is_distributed_training_run():
    return dist.is_available() and dist.is_initialized() and dist.get_world_size() > 1


def get_world_size():
    return dist.get_world_size() if dist.is_available() and dist.is_initialized() else 1


def get_rank():
    return dist.get_rank() if dist.is_available() and dist.is_initialized() else 0


def init_distributed_data_parallel_model(model):
    device_ids = [torch.cuda.current_device()] if torch.cuda.is_available() else None
    return torch.nn.parallel.DistributedDataParallel(model, device_ids=device_ids)
