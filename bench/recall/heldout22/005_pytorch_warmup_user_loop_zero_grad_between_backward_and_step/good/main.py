import argparse

import pytorch_warmup as warmup
import torch
import torch.nn.functional as F
import torch.optim as optim
from torchvision import datasets, transforms

from model import Net


def train(args, model, device, train_loader, optimizer, lr_scheduler, warmup_scheduler, epoch):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        lr = optimizer.param_groups[0]["lr"]
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        with warmup_scheduler.dampening():
            lr_scheduler.step()
        if (batch_idx + 1) % args.log_interval == 0:
            print(f"Train Epoch: {epoch} [{batch_idx + 1}/{len(train_loader)}]\t"
                  f"Loss: {loss.item():.6f} LR: {lr:.6f} step {warmup_scheduler.last_step}")


def test(model, device, test_loader):
    model.eval()
    test_loss, correct = 0.0, 0
    with torch.no_grad():
        for data, target in test_loader:
            data, target = data.to(device), target.to(device)
            output = model(data)
            test_loss += F.nll_loss(output, target, reduction="sum").item()
            correct += output.argmax(dim=1).eq(target).sum().item()
    n = len(test_loader.dataset)
    print(f"\nTest set: Average loss: {test_loss / n:.4f}, Accuracy: {correct}/{n} ({100.0 * correct / n:.0f}%)\n")


def main():
    parser = argparse.ArgumentParser(description="EMNIST with LR warmup")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--lr-min", type=float, default=1e-5)
    parser.add_argument("--wd", type=float, default=0.01)
    parser.add_argument("--warmup-period", type=int, default=500)
    parser.add_argument("--log-interval", type=int, default=10)
    args = parser.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1751,), (0.3332,))])
    train_loader = torch.utils.data.DataLoader(
        datasets.EMNIST(".data", "balanced", train=True, download=True, transform=tf),
        batch_size=args.batch_size, shuffle=True, drop_last=True)
    test_loader = torch.utils.data.DataLoader(
        datasets.EMNIST(".data", "balanced", train=False, transform=tf), batch_size=1000)

    model = Net().to(device)
    optimizer = optim.AdamW(model.parameters(), lr=args.lr, weight_decay=args.wd)
    num_steps = len(train_loader) * args.epochs
    lr_scheduler = optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=num_steps, eta_min=args.lr_min)
    warmup_scheduler = warmup.LinearWarmup(optimizer, warmup_period=args.warmup_period)

    for epoch in range(1, args.epochs + 1):
        train(args, model, device, train_loader, optimizer, lr_scheduler, warmup_scheduler, epoch)
        test(model, device, test_loader)


if __name__ == "__main__":
    main()
