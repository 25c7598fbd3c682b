import torch
from torch import nn

from salema import SalEMA


def main(args, train_loader, weight_decay=1e-4):
    model = SalEMA(alpha=None, ema_loc=args.ema_loc)
    criterion = nn.BCELoss()
    optimizer = torch.optim.Adam([
        {"params": model.salgan.parameters(), "lr": args.lr, "weight_decay": weight_decay},
        {"params": model.alpha, "lr": 0.1}])
    model = model.cuda()
    for epoch in range(args.epochs):
        for clip, gtruths in train_loader:
            state = None
            optimizer.zero_grad()
            loss = 0
            for frame, gtruth in zip(clip, gtruths):
                state, saliency_map = model(frame.cuda(), prev_state=state)
                loss = loss + criterion(saliency_map, gtruth.cuda())
            loss.backward()
            optimizer.step()
