import argparse

import torch
import torch.nn.functional as F

from inc_net import BEEFNet


def train_task(net, device, n_old, n_new, steps=20):
    optimizer = torch.optim.SGD([p for p in net.parameters() if p.requires_grad], lr=0.05, momentum=0.9)
    net.train()
    for _ in range(steps):
        x = torch.randn(16, 3, 32, 32, device=device)
        y = torch.randint(n_old, n_old + n_new, (16,), device=device)
        optimizer.zero_grad()
        logits = net(x)["logits"]
        loss = F.cross_entropy(logits, y)
        loss.backward()
        optimizer.step()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cuda:1")
    parser.add_argument("--tasks", type=int, default=3)
    parser.add_argument("--classes-per-task", type=int, default=10)
    args = parser.parse_args()

    device = torch.device(args.device)
    net = BEEFNet()
    seen = 0
    for task in range(args.tasks):
        net.update_fc(seen + args.classes_per_task)
        net.to(device)
        train_task(net, device, seen, args.classes_per_task)
        seen += args.classes_per_task


if __name__ == "__main__":
    main()
