import torch
import torch.nn.functional as F


def train_model(model, loader, optimizer, device, criterion=F.nll_loss, batches_in_epoch=None):
    """Train the model for one epoch (or `batches_in_epoch` batches)."""
    model.train()
    for batch_idx, (data, target) in enumerate(loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        output = model(data)
        loss = criterion(output, target)
        loss.backward()
        optimizer.step()
        if batches_in_epoch is not None and batch_idx >= batches_in_epoch:
            break


@torch.no_grad()
def evaluate_model(model, loader, device, criterion=F.nll_loss):
    model.eval()
    loss, correct = 0.0, 0
    for data, target in loader:
        data, target = data.to(device), target.to(device)
        output = model(data)
        loss += criterion(output, target, reduction="sum").item()
        correct += output.argmax(dim=1).eq(target).sum().item()
    n = len(loader.dataset)
    return {"mean_loss": loss / n, "mean_accuracy": correct / n}
