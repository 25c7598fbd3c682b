import os

import torch
import torch.nn.functional as F
import torch.optim as optim
from torchvision import datasets, transforms

MNIST_TRANSFORM = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])


def train(rank, args, model):
    train_loader = torch.utils.data.DataLoader(
        datasets.MNIST("../data", train=True, download=True, transform=MNIST_TRANSFORM),
        batch_size=args.batch_size, shuffle=True, num_workers=1,
    )
    test_loader = torch.utils.data.DataLoader(
        datasets.MNIST("../data", train=False, transform=MNIST_TRANSFORM),
        batch_size=args.batch_size, shuffle=False, num_workers=1,
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
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        if batch_idx % args.log_interval == 0:
            print("{}\tepoch {} batch {}\tloss {:.6f}".format(pid, epoch, batch_idx, loss.item()))


def test_epoch(model, data_loader):
    model.eval()
    test_loss = 0.0
    correct = 0
    with torch.no_grad():
        for data, target in data_loader:
            output = model(data)
            test_loss += F.nll_loss(output, target, reduction="sum").item()
            pred = output.argmax(1)
            correct += pred.eq(target).sum().item()
    test_loss /= len(data_loader.dataset)
    print("test: average loss {:.4f}, accuracy {}/{}".format(test_loss, correct, len(data_loader.dataset)))
