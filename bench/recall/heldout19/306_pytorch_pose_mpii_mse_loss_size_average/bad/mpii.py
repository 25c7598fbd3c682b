import argparse

import torch
from torch.utils.data import DataLoader, TensorDataset

from hourglass import HourglassNet

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def accuracy(output, target, thr=0.5):
    n, c = output.shape[:2]
    pred = output.reshape(n, c, -1).argmax(dim=-1)
    gt = target.reshape(n, c, -1).argmax(dim=-1)
    return (pred == gt).float().mean().item()


def train(loader, model, criterion, optimizer):
    model.train()
    total = 0.0
    for inputs, target in loader:
        inputs, target = inputs.to(device), target.to(device, non_blocking=True)
        output = model(inputs)
        loss = criterion(output[0], target)
        for j in range(1, len(output)):
            loss = loss + criterion(output[j], target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total / len(loader)


@torch.no_grad()
def validate(loader, model, criterion):
    model.eval()
    total, acc = 0.0, 0.0
    for inputs, target in loader:
        inputs, target = inputs.to(device), target.to(device, non_blocking=True)
        output = model(inputs)
        total += sum(criterion(o, target) for o in output).item()
        acc += accuracy(output[-1], target)
    return total / len(loader), acc / len(loader)


def main(args):
    model = HourglassNet(num_stacks=args.stacks, num_classes=16).to(device)

    # define loss function (criterion) and optimizer
    criterion = torch.nn.MSELoss(size_average=True).to(device)  # expect: TCK916
    optimizer = torch.optim.RMSprop(model.parameters(), lr=args.lr, momentum=0, weight_decay=0)

    images = torch.randn(64, 3, 256, 256)
    heatmaps = torch.rand(64, 16, 64, 64)
    train_loader = DataLoader(TensorDataset(images, heatmaps), batch_size=args.train_batch, shuffle=True,
                              num_workers=args.workers, pin_memory=True)
    val_loader = DataLoader(TensorDataset(images, heatmaps), batch_size=args.test_batch, shuffle=False,
                            num_workers=args.workers, pin_memory=True)

    best_acc = 0.0
    for epoch in range(args.epochs):
        train_loss = train(train_loader, model, criterion, optimizer)
        val_loss, val_acc = validate(val_loader, model, criterion)
        print(f"epoch {epoch}: train {train_loss:.5f} val {val_loss:.5f} acc {val_acc:.3f}")
        if val_acc > best_acc:
            best_acc = val_acc
            torch.save({"epoch": epoch + 1, "state_dict": model.state_dict(), "best_acc": best_acc,
                        "optimizer": optimizer.state_dict()}, "checkpoint.pth.tar")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--stacks", type=int, default=2)
    parser.add_argument("--lr", type=float, default=2.5e-4)
    parser.add_argument("--epochs", type=int, default=90)
    parser.add_argument("--train-batch", type=int, default=6)
    parser.add_argument("--test-batch", type=int, default=6)
    parser.add_argument("--workers", type=int, default=4)
    main(parser.parse_args())
