import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from delve.torchcallback import CovarianceTracker


def main():
    torch.manual_seed(0)
    x = torch.randn(2048, 32)
    y = (x[:, :4].sum(dim=1) > 0).long()
    train_loader = DataLoader(TensorDataset(x, y), batch_size=64, shuffle=True)
    model = nn.Sequential(nn.Linear(32, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    criterion = nn.CrossEntropyLoss()
    tracker = CovarianceTracker(model)
    for epoch in range(5):
        model.train()
        for xb, yb in train_loader:
            optimizer.zero_grad()
            loss = criterion(model(xb), yb)
            loss.backward()
            optimizer.step()
        model.eval()
        tracker.reset()
        with torch.no_grad():
            for xb, _ in train_loader:
                model(xb)
        for name, values in tracker.report().items():
            print(epoch, name, f"saturation={values['saturation']:.3f}", f"trace={values['trace']:.3f}")


if __name__ == "__main__":
    main()
