import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from widedeep.tab_transformer import TabTransformer


def evaluate(model, loader):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for x_cat, x_cont, y in loader:
            correct += (model(x_cat, x_cont).argmax(1) == y).sum().item()
            total += y.numel()
    return correct / total


def main():
    cards = [10, 7, 24, 5]
    n = 2048
    x_cat = torch.stack([torch.randint(0, c, (n,)) for c in cards], dim=1)
    x_cont = torch.randn(n, 6)
    y = (x_cont[:, 0] + (x_cat[:, 1] > 3).float() > 0.5).long()
    train_loader = DataLoader(TensorDataset(x_cat[:1600], x_cont[:1600], y[:1600]), batch_size=128, shuffle=True)
    val_loader = DataLoader(TensorDataset(x_cat[1600:], x_cont[1600:], y[1600:]), batch_size=256)

    model = TabTransformer(cards, n_continuous=6)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for epoch in range(5):
        model.train()
        for xc, xn, target in train_loader:
            optimizer.zero_grad()
            F.cross_entropy(model(xc, xn), target).backward()
            optimizer.step()
        print(f"epoch {epoch}: val acc {evaluate(model, val_loader):.3f}")


if __name__ == "__main__":
    main()
