import os

import torch
import torch.distributed as dist


def main(args, model, optimizer, lr_scheduler, loader):
    dist.init_process_group("nccl")
    gpu = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(gpu)
    model.cuda()
    model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[gpu])
    model_without_ddp = model.module
    if args.resume:
        checkpoint = torch.load(args.resume, map_location="cpu")
        model_without_ddp.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"])
        lr_scheduler.load_state_dict(checkpoint["lr_scheduler"])
    for epoch in range(args.epochs):
        for image, target in loader:
            loss = torch.nn.functional.cross_entropy(model(image.cuda())["out"], target.cuda())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            lr_scheduler.step()
        if dist.get_rank() == 0:
            torch.save(
                {"model": model_without_ddp.state_dict(), "optimizer": optimizer.state_dict(), "lr_scheduler": lr_scheduler.state_dict()},
                os.path.join(args.output_dir, f"model_{epoch}.pth"),
            )
