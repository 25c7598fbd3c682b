import torch


def train_one_epoch(model, loader, optimizer, criterion, device):
    model.train()
    total, seen = 0.0, 0
    for images, targets in loader:
        images, targets = images.to(device), targets.to(device)
        optimizer.zero_grad()
        loss = criterion(model(images), targets)
        loss.backward()
        optimizer.step()
        total += loss.item() * images.size(0)
        seen += images.size(0)
    return total / seen


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    correct = 0
    for images, targets in loader:
        correct += (model(images.to(device)).argmax(1) == targets.to(device)).sum().item()
    return correct / len(loader.dataset)
