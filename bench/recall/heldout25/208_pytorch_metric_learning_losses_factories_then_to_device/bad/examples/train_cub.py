"""Metric learning on CUB-200 embeddings with one of the library's losses."""
import argparse

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from pytorch_metric_learning import losses


class Embedder(nn.Module):
    def __init__(self, in_dim=2048, embedding_size=128):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, 512), nn.ReLU(), nn.Linear(512, embedding_size))

    def forward(self, x):
        return self.net(x)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--loss", choices=["fastap", "npairs", "softtriple"], default="fastap")
    parser.add_argument("--epochs", type=int, default=50)
    parser.add_argument("--batch_size", type=int, default=128)
    args = parser.parse_args()

    device = torch.device("cuda")
    features = torch.randn(5864, 2048)  # stand-in for backbone features of the training classes
    labels = torch.randint(0, 100, (5864,))
    loader = DataLoader(TensorDataset(features, labels), batch_size=args.batch_size, shuffle=True, drop_last=True)

    model = Embedder().to(device)
    if args.loss == "fastap":
        loss_func = losses.FastAPLoss(num_bins=10)
    elif args.loss == "npairs":
        loss_func = losses.NPairsLoss()
    else:
        loss_func = losses.SoftTripleLoss(num_classes=100, embedding_size=128)
    loss_func = loss_func.to(device)
    optimizer = torch.optim.Adam(list(model.parameters()) + list(loss_func.parameters()), lr=1e-4)

    for epoch in range(args.epochs):
        for i, (x, y) in enumerate(loader):
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = loss_func(model(x), y)
            loss.backward()
            optimizer.step()
            if i % 20 == 0:
                print(f"epoch {epoch} iter {i} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
