import torch


def train_one_epoch(model, loader, criterion, optimizer, device):
    model.train()
    running = torch.zeros((), device=device)
    for images, targets in loader:
        images, targets = images.to(device), targets.to(device)
        optimizer.zero_grad()
        loss = criterion(model(images), targets)
        loss.backward()
        optimizer.step()
        running += loss.detach()
    return (running / len(loader)).item()


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    correct, total = 0, 0
    for images, targets in loader:
        images, targets = images.to(device), targets.to(device)
        correct += (model(images).argmax(1) == targets).sum().item()
        total += targets.numel()
    return correct / total
