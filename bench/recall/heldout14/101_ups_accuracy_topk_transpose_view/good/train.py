import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from utils.misc import AverageMeter, accuracy


class WideBlockNet(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 32, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(32)
        self.conv2 = nn.Conv2d(32, 64, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(64)
        self.fc = nn.Linear(64, num_classes)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.max_pool2d(x, 2)
        x = F.relu(self.bn2(self.conv2(x)))
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.fc(x)


def train_epoch(model, loader, optimizer, device):
    model.train()
    top1, top5 = AverageMeter(), AverageMeter()
    for images, labels in loader:
        images, labels = images.to(device), labels.to(device)
        logits = model(images)
        loss = F.cross_entropy(logits, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        prec1, prec5 = accuracy(logits.detach(), labels, topk=(1, 5))
        top1.update(prec1.item(), images.size(0))
        top5.update(prec5.item(), images.size(0))
    return top1.avg, top5.avg


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    data = TensorDataset(torch.randn(512, 3, 32, 32), torch.randint(0, 10, (512,)))
    loader = DataLoader(data, batch_size=64, shuffle=True, num_workers=2)
    model = WideBlockNet().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.03, momentum=0.9)
    for epoch in range(5):
        acc1, acc5 = train_epoch(model, loader, optimizer, device)
        print(f"epoch {epoch}: top1 {acc1:.2f} top5 {acc5:.2f}")


if __name__ == "__main__":
    main()
