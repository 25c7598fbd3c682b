import numpy as np
import torch


def to_onehot(targets, n_classes):
    onehot = torch.zeros(targets.shape[0], n_classes).to(targets.device)
    onehot.scatter_(dim=1, index=targets.long().view(-1, 1), value=1.)
    return onehot


def _check_loss(loss):
    return not bool(torch.isnan(loss).item()) and bool((loss >= 0.).item())


def compute_accuracy(ypred, ytrue, task_size=10):
    return {"total": round((ypred == ytrue).sum() / len(ytrue), 3)}


def extract_features(model, loader):
    targets, features = [], []
    with torch.no_grad():
        for inputs, _targets, _ in loader:
            features.append(model.extract(inputs.to(model.device)).detach().cpu().numpy())
            targets.append(_targets.numpy())
    return np.concatenate(features), np.concatenate(targets)
