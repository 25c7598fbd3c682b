import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from metrics import accuracy


def build_model(num_classes=10):
    return nn.Sequential(
        nn.Conv2d(3, 32, 3, padding=1),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(32, num_classes),
    )


def evaluate(model, loader, device):
    model.eval()
    top1_sum, top5_sum, n = 0.0, 0.0, 0
    with torch.no_grad():
        for images, labels in loader:
            images, labels = images.to(device), labels.to(device)
            logits = model(images)
            top1, top5 = accuracy(logits, labels, topk=(1, 5))
            top1_sum += top1.item() * images.size(0)
            top5_sum += top5.item() * images.size(0)
            n += images.size(0)
    return top1_sum / n, top5_sum / n


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = build_model().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    criterion = nn.CrossEntropyLoss()
    data = TensorDataset(torch.randn(256, 3, 32, 32), torch.randint(0, 10, (256,)))
    loader = DataLoader(data, batch_size=64, shuffle=True)
    for epoch in range(2):
        model.train()
        for images, labels in loader:
            images, labels = images.to(device), labels.to(device)
            optimizer.zero_grad()
            loss = criterion(model(images), labels)
            loss.backward()
            optimizer.step()
        print(epoch, evaluate(model, loader, device))


if __name__ == "__main__":
    main()
