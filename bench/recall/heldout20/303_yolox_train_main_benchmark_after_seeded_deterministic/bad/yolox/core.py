import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def _worker(local_rank, main_func, world_size, dist_url, args):
    if world_size > 1:
        dist.init_process_group("nccl", init_method=dist_url, world_size=world_size, rank=local_rank)
    torch.cuda.set_device(local_rank)
    main_func(*args)


def launch(main_func, num_gpus, dist_url="tcp://127.0.0.1:29500", args=()):
    if num_gpus > 1:
        mp.spawn(_worker, nprocs=num_gpus, args=(main_func, num_gpus, dist_url, args), daemon=False)
    else:
        os.environ.setdefault("LOCAL_RANK", "0")
        main_func(*args)
