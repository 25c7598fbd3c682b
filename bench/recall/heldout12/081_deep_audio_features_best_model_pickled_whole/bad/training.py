import copy

import torch
from sklearn.metrics import f1_score


def train_and_validate(model, train_loader, valid_loader, loss_function, optimizer, epochs, device):
    best_model = copy.deepcopy(model)
    best_f1 = -1.0
    valid_f1 = []
    for epoch in range(epochs):
        model.train()
        for spectrograms, labels in train_loader:
            spectrograms, labels = spectrograms.to(device), labels.to(device)
            optimizer.zero_grad()
            loss = loss_function(model(spectrograms), labels)
            loss.backward()
            optimizer.step()

        model.eval()
        preds, targets = [], []
        with torch.no_grad():
            for spectrograms, labels in valid_loader:
                out = model(spectrograms.to(device))
                preds.extend(out.argmax(dim=1).cpu().tolist())
                targets.extend(labels.tolist())
        f1 = f1_score(targets, preds, average="macro")
        valid_f1.append(f1)
        if f1 > best_f1:
            best_f1 = f1
            best_model = copy.deepcopy(model)
    return best_model, valid_f1
