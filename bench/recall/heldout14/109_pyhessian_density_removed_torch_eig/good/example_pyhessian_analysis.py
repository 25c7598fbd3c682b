import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from pyhessian.hessian import hessian


class SmallConvNet(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        )
        self.classifier = nn.Linear(32, num_classes)

    def forward(self, x):
        return self.classifier(self.features(x).flatten(1))


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = SmallConvNet().to(device)
    data = TensorDataset(torch.randn(256, 3, 32, 32), torch.randint(0, 10, (256,)))
    batch = next(iter(DataLoader(data, batch_size=200, shuffle=False)))
    hessian_comp = hessian(model, nn.CrossEntropyLoss(), data=batch, device=device)
    eigenvalues, weights = hessian_comp.density(iter=50, n_v=1)
    print("largest Ritz value:", max(eigenvalues[0]))


if __name__ == "__main__":
    main()
