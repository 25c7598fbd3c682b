import torch
import torch.nn as nn
import torch.optim as optim

from raft import RAFT


def sequence_loss(flow_preds, flow_gt, gamma=0.8):
    n = len(flow_preds)
    return sum(gamma ** (n - i - 1) * (p - flow_gt).abs().mean() for i, p in enumerate(flow_preds))


def train(args, train_loader):
    model = nn.DataParallel(RAFT(args), device_ids=args.gpus)  # expect: TCK204
    model.cuda()
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
