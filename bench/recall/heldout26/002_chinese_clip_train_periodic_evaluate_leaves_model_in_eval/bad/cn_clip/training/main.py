import logging

import torch
from torch.cuda.amp import GradScaler

from cn_clip.clip.model import CLIP
from cn_clip.training.data import get_data
from cn_clip.training.params import parse_args
from cn_clip.training.scheduler import cosine_lr
from cn_clip.training.train import train


def main():
    args = parse_args()
    torch.cuda.set_device(args.local_device_rank)
    torch.distributed.init_process_group(backend="nccl")
    args.rank = torch.distributed.get_rank()
    args.world_size = torch.distributed.get_world_size()

    model = CLIP(**args.model_info).cuda(args.local_device_rank)
    model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[args.local_device_rank])

    data = get_data(args, epoch_id=0, max_txt_length=args.context_length)
    optimizer = torch.optim.AdamW(
        [p for p in model.parameters() if p.requires_grad], lr=args.lr, betas=(args.beta1, args.beta2),
        eps=args.eps, weight_decay=args.wd)
    num_batches = data["train"].dataloader.num_batches
    args.max_steps = args.max_epochs * num_batches
    scheduler = cosine_lr(optimizer, args.lr, args.warmup, args.max_steps)
    scaler = GradScaler() if args.precision == "amp" else None

    steps = 0
    for epoch in range(args.max_epochs):
        logging.info("Start epoch %d", epoch + 1)
        steps += train(model, data, epoch, optimizer, scaler, scheduler, args, steps)
        if epoch + 1 < args.max_epochs:
            data = get_data(args, epoch_id=epoch + 1, max_txt_length=args.context_length)


if __name__ == "__main__":
    main()
