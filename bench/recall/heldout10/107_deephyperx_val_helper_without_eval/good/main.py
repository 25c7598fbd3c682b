import torch
from torch import nn, optim
from torch.utils.data import DataLoader, TensorDataset

from models import SpectralCNN, train


def main():
    bands, n_classes, patch = 30, 9, 5
    x = torch.randn(600, 1, bands, patch, patch)
    y = torch.randint(1, n_classes, (600,))
    train_loader = DataLoader(TensorDataset(x[:500], y[:500]), batch_size=32, shuffle=True)
    val_loader = DataLoader(TensorDataset(x[500:], y[500:]), batch_size=64)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    net = SpectralCNN(bands, n_classes, patch)
    optimizer = optim.Adam(net.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss(ignore_index=0)
    train(net, optimizer, criterion, train_loader, epochs=20, device=device, val_loader=val_loader)


if __name__ == "__main__":
    main()
