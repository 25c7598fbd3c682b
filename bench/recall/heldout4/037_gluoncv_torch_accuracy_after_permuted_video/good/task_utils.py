import torch

from utils import accuracy


def validation_classification(model, val_loader, criterion, device="cuda"):
    model.eval()
    results = []
    with torch.no_grad():
        for clips, labels in val_loader:
            clips = clips.permute(0, 2, 1, 3, 4).to(device)
            labels = labels.to(device)
            outputs = model(clips)
            loss = criterion(outputs, labels)
            prec1, prec5 = accuracy(outputs, labels, topk=(1, 5))
            results.append((loss.item(), prec1.item(), prec5.item()))
    return results
