import torch.nn as nn
import torch.nn.functional as F


class Solver(nn.Module):
    """Classifier trained on the current task plus replayed samples."""

    def __init__(self, image_size=32, channels=1, classes=10, hidden=400, dropout=0.5):
        super().__init__()
        self.fc1 = nn.Linear(image_size * image_size * channels, hidden)
        self.bn1 = nn.BatchNorm1d(hidden)
        self.drop = nn.Dropout(dropout)
        self.fc2 = nn.Linear(hidden, classes)

    def forward(self, x):
        x = x.flatten(1)
        x = self.drop(F.relu(self.bn1(self.fc1(x))))
        return self.fc2(x)
