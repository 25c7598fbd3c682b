import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel


def main(args, model, teacher, trainloader, config, optimizer, FaFModule):
    rank = int(os.environ["RANK"])
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(rank % torch.cuda.device_count())
    dist.init_process_group(backend="nccl")
    device = torch.device("cuda", local_rank)
    model = DistributedDataParallel(model.to(device), device_ids=[local_rank], output_device=local_rank, find_unused_parameters=True)
    teacher = DistributedDataParallel(teacher.to(device), device_ids=[local_rank], output_device=local_rank, find_unused_parameters=True)
    fafmodule = FaFModule(model, teacher, config, optimizer)
    for epoch in range(args.nepoch):
        trainloader.sampler.set_epoch(epoch)
        for sample in trainloader:
            fafmodule.step(sample)
        save_dict = {"epoch": epoch, "model_state_dict": fafmodule.model.state_dict(), "optimizer_state_dict": fafmodule.optimizer.state_dict()}

        torch.save(save_dict, os.path.join(args.logpath, "epoch_" + str(epoch) + ".pth"))  # expect: TCK208
