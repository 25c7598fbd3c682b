import argparse

import torch
from sklearn.metrics import roc_auc_score
from torch.utils.data import DataLoader, TensorDataset, random_split

from torchfm.model.afm import AttentionalFactorizationMachineModel


def get_dataset(n_rows=20000, field_dims=(10, 20, 30, 15, 8)):
    fields = torch.stack([torch.randint(0, d, (n_rows,)) for d in field_dims], dim=1)
    target = (fields.sum(dim=1) % 2).float()
    return TensorDataset(fields, target), list(field_dims)


def get_model(name, field_dims):
    if name == "afm":
        return AttentionalFactorizationMachineModel(field_dims, embed_dim=16, attn_size=16, dropouts=(0.2, 0.2))
    raise ValueError("unknown model name: " + name)


def train(model, optimizer, loader, criterion, device):
    model.train()
    for fields, target in loader:
        fields, target = fields.to(device), target.to(device)
        y = model(fields)
        loss = criterion(y, target)
        model.zero_grad()
        loss.backward()
        optimizer.step()


def test(model, loader, device):
    model.eval()
    targets, predicts = [], []
    with torch.no_grad():
        for fields, target in loader:
            y = model(fields.to(device))
            targets.extend(target.tolist())
            predicts.extend(y.tolist())
    return roc_auc_score(targets, predicts)


def main(model_name, epochs, lr, batch_size, device):
    device = torch.device(device)
    dataset, field_dims = get_dataset()
    n_train = int(len(dataset) * 0.8)
    n_valid = int(len(dataset) * 0.1)
    train_set, valid_set, test_set = random_split(dataset, (n_train, n_valid, len(dataset) - n_train - n_valid))
    train_loader = DataLoader(train_set, batch_size=batch_size, shuffle=True)
    valid_loader = DataLoader(valid_set, batch_size=batch_size)
    test_loader = DataLoader(test_set, batch_size=batch_size)
    model = get_model(model_name, field_dims).to(device)
    criterion = torch.nn.BCELoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=1e-6)
    for epoch in range(epochs):
        train(model, optimizer, train_loader, criterion, device)
        print("epoch:", epoch, "validation auc:", test(model, valid_loader, device))
    print("test auc:", test(model, test_loader, device))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_name", default="afm")
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--batch_size", type=int, default=2048)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    main(args.model_name, args.epochs, args.lr, args.batch_size, args.device)
