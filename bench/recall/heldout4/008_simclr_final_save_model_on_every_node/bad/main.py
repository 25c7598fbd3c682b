import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from model import save_model


def main(gpu, args, build_model, train_loader, train):
    rank = args.nr * args.gpus + gpu
    dist.init_process_group("nccl", rank=rank, world_size=args.world_size)
    torch.cuda.set_device(gpu)
    model = build_model(args).to(args.device)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-4)
    model = DDP(model, device_ids=[gpu])
    args.current_epoch = 0
    for epoch in range(args.start_epoch, args.epochs):
        train(args, train_loader, model, optimizer)
        if args.nr == 0 and epoch % 10 == 0:
            save_model(args, model, optimizer)
        args.current_epoch += 1
    save_model(args, model, optimizer)
