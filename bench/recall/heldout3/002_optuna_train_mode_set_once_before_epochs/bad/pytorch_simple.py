import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

DEVICE = torch.device("cpu")
EPOCHS = 10


def define_model(trial):
    n_layers = trial.suggest_int("n_layers", 1, 3)
    layers = []
    in_features = 28 * 28
    for i in range(n_layers):
        out_features = trial.suggest_int(f"n_units_l{i}", 4, 128)
        layers += [nn.Linear(in_features, out_features), nn.ReLU(), nn.Dropout(0.3)]
        in_features = out_features
    layers += [nn.Linear(in_features, 10), nn.LogSoftmax(dim=1)]
    return nn.Sequential(*layers)


def objective(trial, train_loader, valid_loader):
    model = define_model(trial).to(DEVICE)
    optimizer = optim.Adam(model.parameters(), lr=trial.suggest_float("lr", 1e-5, 1e-1, log=True))
    model.train()
    for epoch in range(EPOCHS):
        for data, target in train_loader:
            data, target = data.view(data.size(0), -1).to(DEVICE), target.to(DEVICE)
            optimizer.zero_grad()
            loss = F.nll_loss(model(data), target)
            loss.backward()
            optimizer.step()

        model.eval()  # expect: TCK106
        correct = 0
        with torch.no_grad():
            for data, target in valid_loader:
                pred = model(data.view(data.size(0), -1).to(DEVICE)).argmax(dim=1)
                correct += pred.eq(target.to(DEVICE)).sum().item()
        trial.report(correct / len(valid_loader.dataset), epoch)
    return correct / len(valid_loader.dataset)
