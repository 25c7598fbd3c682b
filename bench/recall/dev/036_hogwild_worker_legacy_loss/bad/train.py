import os

import torch
import torch.nn.functional as F
import torch.optim as optim
from torch.autograd import Variable
from torchvision import datasets, transforms


def mnist_loaders(batch_size):
    transform = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])
    train_set = datasets.MNIST("../data", train=True, download=True, transform=transform)
    test_set = datasets.MNIST("../data", train=False, transform=transform)
    train_loader = torch.utils.data.DataLoader(train_set, batch_size=batch_size, shuffle=True, num_workers=1)
    test_loader = torch.utils.data.DataLoader(test_set, batch_size=batch_size, shuffle=True, num_workers=1)
    return train_loader, test_loader


def train(rank, args, model):
    torch.manual_seed(args.seed + rank)
    train_loader, test_loader = mnist_loaders(args.batch_size)
    optimizer = optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    for epoch in range(1, args.epochs + 1):
        train_epoch(epoch, args, model, train_loader, optimizer)
        test_epoch(model, test_loader)


def train_epoch(epoch, args, model, data_loader, optimizer):
    model.train()
    pid = os.getpid()
    for batch_idx, (data, target) in enumerate(data_loader):
        data, target = Variable(data), Variable(target)  # expect: TCK703
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        if batch_idx % args.log_interval == 0:
            print("{}\tTrain Epoch: {} [{}]\tLoss: {:.6f}".format(
                pid, epoch, batch_idx * len(data), loss.data[0]))  # expect: TCK115


def test_epoch(model, data_loader):
    model.eval()
    test_loss = 0
    correct = 0
    for data, target in data_loader:
        data, target = Variable(data, volatile=True), Variable(target)  # expect: TCK703
        output = model(data)
        test_loss += F.nll_loss(output, target, size_average=False).data[0]  # expect: TCK115, TCK916
        pred = output.data.max(1)[1]
        correct += pred.eq(target.data).sum()
    test_loss /= len(data_loader.dataset)
    print("Test set: Average loss: {:.4f}, Accuracy: {}".format(test_loss, correct))
