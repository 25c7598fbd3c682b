import argparse

import torch
import torch.nn as nn

from models.stacked_danet import DAF_stack


def run_training(args):
    print("~~~~~~~~~~~ Creating the DAF Stacked model ~~~~~~~~~~")
    net = DAF_stack(n_classes=args.num_classes)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    net = net.to(device)
    optimizer = torch.optim.Adam(net.parameters(), lr=args.lr, betas=(0.9, 0.99), amsgrad=False)
    criterion = nn.CrossEntropyLoss()
    net.train()
    for step in range(args.steps):
        images = torch.randn(args.batch_size, 3, 256, 256, device=device)
        labels = torch.randint(0, args.num_classes, (args.batch_size, 256, 256), device=device)
        outputs = net(images)
        loss = sum(criterion(out, labels) for out in outputs)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(step, loss.item())


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--num_classes", type=int, default=5)
    parser.add_argument("--batch_size", type=int, default=2)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--lr", type=float, default=1e-3)
    run_training(parser.parse_args())
