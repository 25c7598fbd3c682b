import torch
import torch.distributed as dist
from torch.utils.data import DataLoader


def build(model, dataset, opt, batch_size):
    if torch.cuda.device_count() > 1:
        dist.init_process_group(backend=opt.backend, init_method=opt.dist_url, world_size=opt.world_size, rank=opt.rank)
        model = torch.nn.parallel.DistributedDataParallel(model)
        sampler = torch.utils.data.distributed.DistributedSampler(dataset)
    else:
        sampler = None
    dataloader = DataLoader(dataset, batch_size=batch_size, num_workers=opt.num_workers, shuffle=True, pin_memory=True, collate_fn=dataset.collate_fn, sampler=sampler)  # expect: TCK801
    return model, dataloader
