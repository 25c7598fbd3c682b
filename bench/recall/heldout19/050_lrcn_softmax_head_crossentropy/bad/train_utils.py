import torch


def forward_step(model, clips, labels, criterion, evaluating=False):
    if evaluating:
        with torch.no_grad():
            output = model(clips)
    else:
        output = model(clips)
    loss = criterion(output, labels)  # expect: TCK605
    correct = (output.argmax(dim=1) == labels).sum().item()
    return loss, correct


def train_epoch(model, loader, device, optimizer, criterion):
    model.train()
    total_loss, total_correct = 0.0, 0
    for clips, labels in loader:
        clips, labels = clips.to(device), labels.to(device)
        optimizer.zero_grad()
        loss, correct = forward_step(model, clips, labels, criterion)
        loss.backward()
        optimizer.step()
        total_loss += loss.item()
        total_correct += correct
    return total_loss / len(loader), total_correct / len(loader.dataset)


def evaluate(model, loader, device, criterion):
    model.eval()
    total_loss, total_correct = 0.0, 0
    for clips, labels in loader:
        clips, labels = clips.to(device), labels.to(device)
        loss, correct = forward_step(model, clips, labels, criterion, evaluating=True)
        total_loss += loss.item()
        total_correct += correct
    return total_loss / len(loader), total_correct / len(loader.dataset)
