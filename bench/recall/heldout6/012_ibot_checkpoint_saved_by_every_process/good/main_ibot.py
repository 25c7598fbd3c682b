import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel


def train_ibot(args, student, teacher, data_loader, optimizer, ibot_loss, train_one_epoch):
    dist.init_process_group(backend="nccl", init_method=args.dist_url)
    student = DistributedDataParallel(student.cuda(), device_ids=[args.gpu])
    for epoch in range(args.epochs):
        data_loader.sampler.set_epoch(epoch)
        train_one_epoch(student, teacher, ibot_loss, data_loader, optimizer, epoch)
        save_dict = {
            "student": student.state_dict(),
            "teacher": teacher.state_dict(),
            "optimizer": optimizer.state_dict(),
            "epoch": epoch + 1,
        }

        if args.saveckp_freq and (epoch % args.saveckp_freq == 0) and epoch and dist.get_rank() == 0:
            torch.save(save_dict, os.path.join(args.output_dir, f"checkpoint{epoch:04}.pth"))
