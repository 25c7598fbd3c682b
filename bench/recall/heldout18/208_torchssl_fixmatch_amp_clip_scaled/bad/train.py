import argparse
import math

import torch
from torch.utils.data import DataLoader
from torchvision.models import wide_resnet50_2

from fixmatch import FixMatch


def cosine_schedule(optimizer, total_steps, warmup=0):
    def lr_lambda(step):
        if step < warmup:
            return step / max(1, warmup)
        return max(0.0, math.cos(7 * math.pi * (step - warmup) / (16 * (total_steps - warmup))))
    return torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)


def main(lb_dataset, ulb_dataset):
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpu", type=int, default=0)
    parser.add_argument("--amp", action="store_true")
    parser.add_argument("--clip", type=float, default=1.0)
    parser.add_argument("--num_train_iter", type=int, default=2 ** 20)
    parser.add_argument("--num_classes", type=int, default=10)
    args = parser.parse_args()

    model = wide_resnet50_2(num_classes=args.num_classes).cuda(args.gpu)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.03, momentum=0.9, nesterov=True, weight_decay=5e-4)
    scheduler = cosine_schedule(optimizer, args.num_train_iter)
    loader_lb = DataLoader(lb_dataset, batch_size=64, shuffle=True, num_workers=4, drop_last=True)
    loader_ulb = DataLoader(ulb_dataset, batch_size=448, shuffle=True, num_workers=4, drop_last=True)
    algorithm = FixMatch(model, optimizer, scheduler)
    while algorithm.it <= args.num_train_iter:
        algorithm.train(args, loader_lb, loader_ulb)
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "it": algorithm.it}, "latest.pth")
