import argparse

import torch

from loss import JointEdgeSegLoss
from model import GatedSegNet


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--num-classes", type=int, default=19)
    parser.add_argument("--iters", type=int, default=100)
    parser.add_argument("--lr", type=float, default=0.01)
    args = parser.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    criterion = JointEdgeSegLoss(edge_weight=1.0, seg_weight=1.0)
    net = GatedSegNet(args.num_classes, criterion=criterion).to(device)
    optimizer = torch.optim.SGD(net.parameters(), lr=args.lr, momentum=0.9)

    net.train()
    for it in range(args.iters):
        images = torch.randn(2, 3, 128, 128, device=device)
        mask = torch.randint(0, args.num_classes, (2, 128, 128), device=device)
        edge = torch.randint(0, 2, (2, 1, 128, 128), device=device).float()

        optimizer.zero_grad()
        losses = net(images, gts=(mask, edge))
        loss = losses["seg_loss"] + losses["edge_loss"]
        loss.backward()
        optimizer.step()
        if it % 10 == 0:
            print(it, loss.item())


if __name__ == "__main__":
    main()
