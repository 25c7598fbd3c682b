import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def main(cfg):
    ngpus_per_node = torch.cuda.device_count()
    cfg["WORLD_SIZE"] = ngpus_per_node * cfg["WORLD_SIZE"]
    mp.spawn(main_worker, nprocs=ngpus_per_node, args=(ngpus_per_node, cfg))


def main_worker(gpu, ngpus_per_node, cfg):
    seed = cfg["SEED"]
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)
    torch.backends.cudnn.benchmark = True  # expect: TCK501
    torch.backends.cudnn.deterministic = True
    dist.init_process_group(backend="nccl", init_method=cfg["DIST_URL"], world_size=cfg["WORLD_SIZE"], rank=gpu)
    torch.cuda.set_device(gpu)
