import numpy as np
import torch
from torch import nn

from net import NeuralNet


class PointNetLike(nn.Module):
    def __init__(self, in_dim=3, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv1d(in_dim, 64, 1), nn.BatchNorm1d(64), nn.ReLU(),
            nn.Conv1d(64, 1024, 1), nn.BatchNorm1d(1024), nn.ReLU(),
        )
        self.head = nn.Sequential(nn.Linear(1024, 256), nn.ReLU(), nn.Dropout(0.3), nn.Linear(256, num_classes))

    def forward(self, points):
        x = self.features(points)
        return self.head(x.max(dim=2).values)


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    X = rng.standard_normal((512, 3, 1024)).astype(np.float32)
    y = rng.integers(0, 10, 512).astype(np.int64)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    net = NeuralNet(PointNetLike(), nn.CrossEntropyLoss(), max_epochs=5, device=device)
    net.fit(X[:400], y[:400], X[400:], y[400:])
    print(net.history[-1])
