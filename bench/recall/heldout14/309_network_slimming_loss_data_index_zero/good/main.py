import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torchvision import datasets, transforms

from models import vgg

parser = argparse.ArgumentParser(description="Network slimming CIFAR training")
parser.add_argument("--sr", action="store_true", help="train with channel sparsity regularization")
parser.add_argument("--s", type=float, default=1e-4)
parser.add_argument("--epochs", type=int, default=160)
parser.add_argument("--lr", type=float, default=0.1)
parser.add_argument("--log-interval", type=int, default=100)
args = parser.parse_args()
device = "cuda" if torch.cuda.is_available() else "cpu"

normalize = transforms.Normalize((0.4914, 0.4822, 0.4465), (0.2023, 0.1994, 0.2010))
train_loader = torch.utils.data.DataLoader(
    datasets.CIFAR10("./data.cifar10", train=True, download=True, transform=transforms.Compose([
        transforms.RandomCrop(32, padding=4), transforms.RandomHorizontalFlip(), transforms.ToTensor(), normalize])),
    batch_size=64, shuffle=True, num_workers=2)
test_loader = torch.utils.data.DataLoader(
    datasets.CIFAR10("./data.cifar10", train=False, transform=transforms.Compose([transforms.ToTensor(), normalize])),
    batch_size=256, shuffle=False, num_workers=2)

model = vgg().to(device)
optimizer = optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=1e-4)


def update_bn():
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.weight.grad.add_(args.s * torch.sign(m.weight.detach()))


def train(epoch):
    model.train()
    avg_loss = 0.0
    train_acc = 0.0
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        output = model(data)
        loss = F.cross_entropy(output, target)
        avg_loss += loss.item()
        pred = output.argmax(dim=1)
        train_acc += pred.eq(target).sum().item()
        loss.backward()
        if args.sr:
            update_bn()
        optimizer.step()
        if batch_idx % args.log_interval == 0:
            print(f"Train Epoch: {epoch} [{batch_idx * len(data)}/{len(train_loader.dataset)}]\tLoss: {loss.item():.6f}")
    return avg_loss / len(train_loader), train_acc / len(train_loader.dataset)


def test():
    model.eval()
    test_loss = 0.0
    correct = 0
    with torch.no_grad():
        for data, target in test_loader:
            data, target = data.to(device), target.to(device)
            output = model(data)
            test_loss += F.cross_entropy(output, target, reduction="sum").item()
            correct += output.argmax(dim=1).eq(target).sum().item()
    test_loss /= len(test_loader.dataset)
    print(f"Test set: Average loss: {test_loss:.4f}, Accuracy: {correct}/{len(test_loader.dataset)}")
    return correct / len(test_loader.dataset)


best_prec1 = 0.0
for epoch in range(args.epochs):
    if epoch in [args.epochs // 2, 3 * args.epochs // 4]:
        for param_group in optimizer.param_groups:
            param_group["lr"] *= 0.1
    train(epoch)
    prec1 = test()
    if prec1 > best_prec1:
        best_prec1 = prec1
        torch.save({"epoch": epoch + 1, "state_dict": model.state_dict(), "best_prec1": best_prec1}, "model_best.pth.tar")
