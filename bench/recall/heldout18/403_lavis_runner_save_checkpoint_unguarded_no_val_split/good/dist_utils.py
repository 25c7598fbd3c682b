import os

import torch
import torch.distributed as dist


def is_dist_avail_and_initialized():
    return dist.is_available() and dist.is_initialized()


def get_rank():
    if not is_dist_avail_and_initialized():
        return 0
    return dist.get_rank()


def get_world_size():
    if not is_dist_avail_and_initialized():
        return 1
    return dist.get_world_size()


def is_main_process():
    return get_rank() == 0


def init_distributed_mode(run_cfg):
    if "RANK" in os.environ and "WORLD_SIZE" in os.environ:
        run_cfg.rank = int(os.environ["RANK"])
        run_cfg.world_size = int(os.environ["WORLD_SIZE"])
        run_cfg.gpu = int(os.environ["LOCAL_RANK"])
    else:
        print("Not using distributed mode")
        run_cfg.distributed = False
        return
    run_cfg.distributed = True
    torch.cuda.set_device(run_cfg.gpu)
    dist.init_process_group(backend="nccl", init_method="env://", world_size=run_cfg.world_size, rank=run_cfg.rank)
    dist.barrier()
