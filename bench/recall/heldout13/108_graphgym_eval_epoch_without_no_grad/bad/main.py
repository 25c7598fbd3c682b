import torch
from torch_geometric.datasets import TUDataset
from torch_geometric.loader import DataLoader

from gnn import GNN
from train import Logger, train


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    dataset = TUDataset(root="datasets/TU", name="PROTEINS").shuffle()
    n = len(dataset)
    splits = [dataset[: int(0.8 * n)], dataset[int(0.8 * n) : int(0.9 * n)], dataset[int(0.9 * n) :]]
    loaders = [
        DataLoader(splits[0], batch_size=32, shuffle=True, num_workers=2),
        DataLoader(splits[1], batch_size=64, shuffle=False, num_workers=2),
        DataLoader(splits[2], batch_size=64, shuffle=False, num_workers=2),
    ]
    loggers = [Logger("train"), Logger("val"), Logger("test")]
    model = GNN(dataset.num_node_features, dataset.num_classes).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=200)
    train(loggers, loaders, model, optimizer, scheduler, device)


if __name__ == "__main__":
    main()
