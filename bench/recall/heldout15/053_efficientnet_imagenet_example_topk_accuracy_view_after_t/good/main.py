import argparse

import torch
import torch.nn as nn
from efficientnet_pytorch import EfficientNet
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

from utils import AverageMeter, accuracy


def train(loader, model, criterion, optimizer, device):
    top1, top5 = AverageMeter("Acc@1"), AverageMeter("Acc@5")
    model.train()
    for images, target in loader:
        images = images.to(device, non_blocking=True)
        target = target.to(device, non_blocking=True)
        output = model(images)
        loss = criterion(output, target)
        acc1, acc5 = accuracy(output, target, topk=(1, 5))
        top1.update(acc1[0].item(), images.size(0))
        top5.update(acc5[0].item(), images.size(0))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return top1.avg, top5.avg


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("data")
    parser.add_argument("-a", "--arch", default="efficientnet-b0")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--epochs", type=int, default=1)
    args = parser.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    image_size = EfficientNet.get_image_size(args.arch)
    transform = transforms.Compose([
        transforms.RandomResizedCrop(image_size),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]),
    ])
    dataset = datasets.ImageFolder(args.data, transform)
    loader = DataLoader(dataset, batch_size=args.batch_size, shuffle=True, num_workers=8, pin_memory=True)

    model = EfficientNet.from_pretrained(args.arch).to(device)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
    for epoch in range(args.epochs):
        acc1, acc5 = train(loader, model, criterion, optimizer, device)
        print(f"epoch {epoch}: acc@1 {acc1:.2f} acc@5 {acc5:.2f}")


if __name__ == "__main__":
    main()
