import os

import torch
import torch.nn.functional as F
import torch.optim as optim
from torchvision import datasets, transforms

MNIST_TRANSFORM = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])


def train(rank, args, model):
    torch.manual_seed(args.seed + rank)
    train_loader = torch.utils.data.DataLoader(
        datasets.MNIST("data", train=True, download=True, transform=MNIST_TRANSFORM),
        batch_size=args.batch_size,
        shuffle=True,
        num_workers=1,
    )
    test_loader = torch.utils.data.DataLoader(
        datasets.MNIST("data", train=False, transform=MNIST_TRANSFORM),
        batch_size=args.test_batch_size,
        shuffle=False,
        num_workers=1,
    )
    optimizer = optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    for epoch in range(1, args.epochs + 1):
        train_epoch(epoch, args, model, train_loader, optimizer)
        test_epoch(model, test_loader)


def train_epoch(epoch, args, model, data_loader, optimizer):
    model.train()
    pid = os.getpid()
    for batch_idx, (data, target) in enumerate(data_loader):
        optimizer.zero_grad()
        loss = F.nll_loss(model(data), target)
        loss.backward()
        optimizer.step()
        if batch_idx % args.log_interval == 0:
            print(
                f"{pid}\tTrain Epoch: {epoch} [{batch_idx * len(data)}/{len(data_loader.dataset)}]"
                f"\tLoss: {loss.item():.6f}"
            )


def test_epoch(model, data_loader):
    model.eval()
    test_loss, correct = 0.0, 0
    with torch.no_grad():
        for data, target in data_loader:
            output = model(data)
            test_loss += F.nll_loss(output, target, reduction="sum").item()
            correct += (output.argmax(dim=1) == target).sum().item()
    n = len(data_loader.dataset)
    print(f"\nTest set: Average loss: {test_loss / n:.4f}, Accuracy: {correct}/{n} ({100.0 * correct / n:.0f}%)\n")
