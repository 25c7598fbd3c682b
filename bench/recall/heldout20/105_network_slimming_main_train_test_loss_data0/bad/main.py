import argparse
import shutil

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.autograd import Variable
from torchvision import datasets, transforms

from vgg import vgg

parser = argparse.ArgumentParser(description="CIFAR training with channel sparsity (network slimming)")
parser.add_argument("--sr", action="store_true", help="L1 sparsity on BatchNorm scales")
parser.add_argument("--s", type=float, default=1e-4)
parser.add_argument("--batch-size", type=int, default=100)
parser.add_argument("--test-batch-size", type=int, default=1000)
parser.add_argument("--epochs", type=int, default=160)
parser.add_argument("--lr", type=float, default=0.1)
parser.add_argument("--log-interval", type=int, default=100)
args = parser.parse_args()
args.cuda = torch.cuda.is_available()

norm = transforms.Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5))
train_loader = torch.utils.data.DataLoader(
    datasets.CIFAR10("./data", train=True, download=True, transform=transforms.Compose(
        [transforms.Pad(4), transforms.RandomCrop(32), transforms.RandomHorizontalFlip(), transforms.ToTensor(), norm])),
    batch_size=args.batch_size, shuffle=True)
test_loader = torch.utils.data.DataLoader(
    datasets.CIFAR10("./data", train=False, transform=transforms.Compose([transforms.ToTensor(), norm])),
    batch_size=args.test_batch_size, shuffle=False)

model = vgg()
if args.cuda:
    model.cuda()
optimizer = optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=1e-4)


def update_bn():
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.weight.grad.data.add_(args.s * torch.sign(m.weight.data))


def train(epoch):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        if args.cuda:
            data, target = data.cuda(), target.cuda()
        data, target = Variable(data), Variable(target)
        optimizer.zero_grad()
        output = model(data)
        loss = F.cross_entropy(output, target)
        loss.backward()
        if args.sr:
            update_bn()
        optimizer.step()
        if batch_idx % args.log_interval == 0:
            print("Train Epoch: {} [{}/{}]\tLoss: {:.6f}".format(
                epoch, batch_idx * len(data), len(train_loader.dataset), loss.data[0]))  # expect: TCK115


def test():
    model.eval()
    test_loss = 0
    correct = 0
    for data, target in test_loader:
        if args.cuda:
            data, target = data.cuda(), target.cuda()
        data, target = Variable(data, volatile=True), Variable(target)
        output = model(data)
        test_loss += F.cross_entropy(output, target, size_average=False).data[0]  # expect: TCK115
        pred = output.data.max(1, keepdim=True)[1]
        correct += pred.eq(target.data.view_as(pred)).cpu().sum()
    test_loss /= len(test_loader.dataset)
    print("Test set: Average loss: {:.4f}, Accuracy: {}/{}".format(test_loss, correct, len(test_loader.dataset)))
    return correct / float(len(test_loader.dataset))


best_prec1 = 0.0
for epoch in range(args.epochs):
    if epoch in [args.epochs * 0.5, args.epochs * 0.75]:
        for group in optimizer.param_groups:
            group["lr"] *= 0.1
    train(epoch)
    prec1 = test()
    is_best = prec1 > best_prec1
    best_prec1 = max(prec1, best_prec1)
    torch.save({"epoch": epoch + 1, "state_dict": model.state_dict(), "best_prec1": best_prec1}, "checkpoint.pth.tar")
    if is_best:
        shutil.copyfile("checkpoint.pth.tar", "model_best.pth.tar")
