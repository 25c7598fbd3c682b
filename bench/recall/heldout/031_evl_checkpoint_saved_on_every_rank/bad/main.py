import os

import torch
import torch.distributed as dist


def main(args, model, train_loader, criterion):
    dist.init_process_group("nccl")
    cuda_device_id = dist.get_rank() % torch.cuda.device_count()
    torch.cuda.set_device(cuda_device_id)
    model = torch.nn.parallel.DistributedDataParallel(model.cuda(), device_ids=[cuda_device_id])
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    lr_sched = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, args.num_steps)
    data_iter = iter(train_loader)
    for i in range(args.num_steps):
        frames, labels = next(data_iter)
        frames, labels = frames.cuda(), labels.cuda()
        loss = criterion(model(frames), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        lr_sched.step()

        if (i + 1) % args.save_freq == 0:
            ckpt = {"model": model.module.state_dict(), "optimizer": optimizer.state_dict(), "next_step": i + 1}
            torch.save(ckpt, os.path.join(args.checkpoint_dir, f"checkpoint-{i + 1}.pth"))  # expect: TCK208
