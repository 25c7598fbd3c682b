"""MNIST example with an optional MS-AMP wrapper around the model and optimizer."""
import argparse

import msamp
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.lr_scheduler import StepLR
from torchvision import datasets, transforms


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.drop1 = nn.Dropout(0.25)
        self.drop2 = nn.Dropout(0.5)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = torch.flatten(self.drop1(x), 1)
        x = self.drop2(F.relu(self.fc1(x)))
        return F.log_softmax(self.fc2(x), dim=1)


def train(args, model, device, train_loader, optimizer, epoch):
    scaler = torch.amp.GradScaler("cuda")
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        with torch.amp.autocast("cuda"):
            output = model(data)
        loss = F.nll_loss(output, target)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        if batch_idx % args.log_interval == 0:
            print(f"epoch {epoch} [{batch_idx * len(data)}/{len(train_loader.dataset)}] loss {loss.item():.6f}")
            if args.dry_run:
                break


def test(model, device, test_loader):
    model.eval()
    test_loss, correct = 0.0, 0
    with torch.no_grad():
        for data, target in test_loader:
            data, target = data.to(device), target.to(device)
            with torch.amp.autocast("cuda"):
                output = model(data)
            test_loss += F.nll_loss(output, target, reduction="sum").item()
            correct += output.argmax(dim=1).eq(target).sum().item()
    n = len(test_loader.dataset)
    print(f"test: average loss {test_loss / n:.4f}, accuracy {correct}/{n}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--gamma", type=float, default=0.7)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--log-interval", type=int, default=10)
    parser.add_argument("--dry-run", action="store_true")
    parser.add_argument("--enable-msamp", action="store_true")
    parser.add_argument("--opt-level", default="O1")
    args = parser.parse_args()

    torch.manual_seed(args.seed)
    device = torch.device("cuda")
    transform = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])
    train_set = datasets.MNIST("./data", train=True, download=True, transform=transform)
    test_set = datasets.MNIST("./data", train=False, transform=transform)
    train_loader = torch.utils.data.DataLoader(train_set, batch_size=args.batch_size, shuffle=True,
                                               num_workers=1, pin_memory=True)
    test_loader = torch.utils.data.DataLoader(test_set, batch_size=1000, num_workers=1, pin_memory=True)

    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    if args.enable_msamp:
        model, optimizer = msamp.initialize(model, optimizer, opt_level=args.opt_level)

    scheduler = StepLR(optimizer, step_size=1, gamma=args.gamma)
    for epoch in range(1, args.epochs + 1):
        train(args, model, device, train_loader, optimizer, epoch)
        test(model, device, test_loader)
        scheduler.step()


if __name__ == "__main__":
    main()
