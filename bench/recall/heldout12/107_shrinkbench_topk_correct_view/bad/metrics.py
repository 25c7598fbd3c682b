import numpy as np
import torch


def correct(output, target, topk=(1,)):
    """Number of samples whose target is among the top-k predictions, for each k."""
    with torch.no_grad():
        maxk = max(topk)
        _, pred = output.topk(maxk, 1, True, True)
        pred = pred.t()
        hits = pred.eq(target.view(1, -1).expand_as(pred))
        res = []
        for k in topk:
            correct_k = hits[:k].view(-1).float().sum(0, keepdim=True)  # expect: TCK705
            res.append(correct_k.item())
        return res


def accuracy(model, dataloader, topk=(1,)):
    device = next(model.parameters()).device
    accs = np.zeros(len(topk))
    model.eval()
    with torch.no_grad():
        for inputs, targets in dataloader:
            inputs, targets = inputs.to(device), targets.to(device)
            accs += np.array(correct(model(inputs), targets, topk))
    return accs / len(dataloader.dataset)
