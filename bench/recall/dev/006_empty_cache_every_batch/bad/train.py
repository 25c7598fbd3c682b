import torch


def train(model, loader, criterion, optimizer, device):
    model.train()
    for images, labels in loader:
        images = images.to(device)
        labels = labels.to(device)
        optimizer.zero_grad()
        loss = criterion(model(images), labels)
        loss.backward()
        optimizer.step()
        torch.cuda.empty_cache()  # expect: TCK203
