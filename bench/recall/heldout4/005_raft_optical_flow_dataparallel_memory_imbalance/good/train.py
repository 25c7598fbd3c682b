import os

import torch
import torch.distributed as dist
import torch.optim as optim
from torch.nn.parallel import DistributedDataParallel as DDP

from raft import RAFT


def sequence_loss(flow_preds, flow_gt, gamma=0.8):
    n = len(flow_preds)
    return sum(gamma ** (n - i - 1) * (p - flow_gt).abs().mean() for i, p in enumerate(flow_preds))


def train(args, train_loader):
    dist.init_process_group("nccl")
    rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(rank)
    model = DDP(RAFT(args).cuda(rank), device_ids=[rank])
    model.train()
    optimizer = optim.AdamW(model.parameters(), lr=args.lr, weight_decay=args.wdecay)
    for step, (image1, image2, flow, valid) in enumerate(train_loader):
        optimizer.zero_grad()
        image1, image2, flow = image1.cuda(), image2.cuda(), flow.cuda()
        flow_predictions = model(image1, image2, iters=args.iters)
        loss = sequence_loss(flow_predictions, flow)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
        optimizer.step()
        if step >= args.num_steps:
            break
