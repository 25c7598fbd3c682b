import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from lrcn_model import ConvLstmClassifier
from train_utils import evaluate, train_epoch


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--lr", type=float, default=1e-4)
    args = parser.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    clips = torch.randn(64, 8, 3, 112, 112)
    labels = torch.randint(0, 101, (64,))
    train_loader = DataLoader(TensorDataset(clips, labels), batch_size=8, shuffle=True)
    val_loader = DataLoader(TensorDataset(clips, labels), batch_size=8)

    model = ConvLstmClassifier(latent_dim=512, hidden_size=256, num_layers=2, n_class=101).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    criterion = nn.CrossEntropyLoss()

    for epoch in range(args.epochs):
        train_loss, train_acc = train_epoch(model, train_loader, device, optimizer, criterion)
        val_loss, val_acc = evaluate(model, val_loader, device, criterion)
        print(f"epoch {epoch}: train {train_loss:.3f}/{train_acc:.3f} val {val_loss:.3f}/{val_acc:.3f}")


if __name__ == "__main__":
    main()
