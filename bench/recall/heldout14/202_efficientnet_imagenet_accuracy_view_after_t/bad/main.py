import argparse
import time

import torch
import torch.nn as nn
import torchvision.datasets as datasets
import torchvision.transforms as transforms
from efficientnet_pytorch import EfficientNet


class AverageMeter:
    def __init__(self, name):
        self.name = name
        self.sum = 0.0
        self.count = 0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


def accuracy(output, target, topk=(1,)):
    """Top-k precision of the predictions, in percent."""
    with torch.no_grad():
        maxk = max(topk)
        batch_size = target.size(0)
        _, pred = output.topk(maxk, 1, True, True)
        pred = pred.t()
        correct = pred.eq(target.view(1, -1).expand_as(pred))
        res = []
        for k in topk:
            correct_k = correct[:k].view(-1).float().sum(0, keepdim=True)  # expect: TCK705
            res.append(correct_k.mul_(100.0 / batch_size))
        return res


def train(loader, model, criterion, optimizer, epoch, device):
    top1, top5 = AverageMeter("Acc@1"), AverageMeter("Acc@5")
    model.train()
    end = time.time()
    for i, (images, target) in enumerate(loader):
        images, target = images.to(device, non_blocking=True), target.to(device, non_blocking=True)
        output = model(images)
        loss = criterion(output, target)
        acc1, acc5 = accuracy(output, target, topk=(1, 5))
        top1.update(acc1[0].item(), images.size(0))
        top5.update(acc5[0].item(), images.size(0))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if i % 10 == 0:
            print(f"epoch {epoch} [{i}/{len(loader)}] loss {loss.item():.3f} "
                  f"acc@1 {top1.avg:.2f} acc@5 {top5.avg:.2f} {time.time() - end:.1f}s")


def validate(loader, model, device):
    top1 = AverageMeter("Acc@1")
    model.eval()
    with torch.no_grad():
        for images, target in loader:
            images, target = images.to(device), target.to(device)
            acc1, _ = accuracy(model(images), target, topk=(1, 5))
            top1.update(acc1[0].item(), images.size(0))
    return top1.avg


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("data")
    parser.add_argument("--arch", default="efficientnet-b0")
    parser.add_argument("--epochs", type=int, default=90)
    parser.add_argument("--batch-size", type=int, default=64)
    args = parser.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = EfficientNet.from_pretrained(args.arch).to(device)
    size = EfficientNet.get_image_size(args.arch)
    normalize = transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])
    train_set = datasets.ImageFolder(f"{args.data}/train", transforms.Compose([
        transforms.RandomResizedCrop(size), transforms.RandomHorizontalFlip(),
        transforms.ToTensor(), normalize]))
    val_set = datasets.ImageFolder(f"{args.data}/val", transforms.Compose([
        transforms.Resize(size + 32), transforms.CenterCrop(size), transforms.ToTensor(), normalize]))
    train_loader = torch.utils.data.DataLoader(train_set, batch_size=args.batch_size, shuffle=True,
                                               num_workers=8, pin_memory=True)
    val_loader = torch.utils.data.DataLoader(val_set, batch_size=args.batch_size, num_workers=8,
                                             pin_memory=True)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
    for epoch in range(args.epochs):
        train(train_loader, model, criterion, optimizer, epoch, device)
        print(f"epoch {epoch} val acc@1 {validate(val_loader, model, device):.2f}")


if __name__ == "__main__":
    main()
