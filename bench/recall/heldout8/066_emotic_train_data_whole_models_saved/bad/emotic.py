import torch
from torch import nn


class Emotic(nn.Module):
    """Fuses context and body features into discrete and continuous emotion predictions."""

    def __init__(self, num_context_features, num_body_features):
        super().__init__()
        self.fc1 = nn.Linear(num_context_features + num_body_features, 256)
        self.bn1 = nn.BatchNorm1d(256)
        self.d1 = nn.Dropout(p=0.5)
        self.fc_cat = nn.Linear(256, 26)
        self.fc_cont = nn.Linear(256, 3)
        self.relu = nn.ReLU()

    def forward(self, x_context, x_body):
        fuse = torch.cat((x_context.flatten(1), x_body.flatten(1)), 1)
        fuse = self.d1(self.relu(self.bn1(self.fc1(fuse))))
        return self.fc_cat(fuse), self.fc_cont(fuse)
