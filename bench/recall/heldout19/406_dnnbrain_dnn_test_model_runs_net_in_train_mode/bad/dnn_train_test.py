import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

from models import DNN2BrainNet, dnn_test_model, dnn_train_model


class ActivationDataset(Dataset):
    """(stimulus id, DNN activation map, label) triples."""

    def __init__(self, n, channels=64, size=14, num_classes=10):
        self.x = torch.randn(n, channels, size, size)
        self.y = torch.randint(0, num_classes, (n,))

    def __len__(self):
        return len(self.y)

    def __getitem__(self, idx):
        return idx, self.x[idx], self.y[idx]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--lr", type=float, default=1e-3)
    args = parser.parse_args()

    train_loader = DataLoader(ActivationDataset(512), batch_size=32, shuffle=True)
    test_loader = DataLoader(ActivationDataset(128), batch_size=32, shuffle=False)
    model = DNN2BrainNet()
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    model = dnn_train_model(train_loader, model, criterion, optimizer, num_epoches=args.epochs)
    _, _, test_acc = dnn_test_model(test_loader, model)
    print("test accuracy: {:.3f}".format(test_acc))


if __name__ == "__main__":
    main()
