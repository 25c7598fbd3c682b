import torch
import torch.nn.functional as F

from misc import accuracy


def test(test_loader, model, device="cuda"):
    model.eval()
    top1, top5 = [], []
    with torch.no_grad():
        for inputs, targets in test_loader:
            inputs, targets = inputs.to(device), targets.to(device)
            outputs = model(inputs)
            loss = F.cross_entropy(outputs, targets)
            prec1, prec5 = accuracy(outputs, targets, topk=(1, 5))
            top1.append(prec1.item())
            top5.append(prec5.item())
    return sum(top1) / len(top1), sum(top5) / len(top5)
