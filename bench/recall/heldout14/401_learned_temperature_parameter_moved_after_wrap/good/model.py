import torch
import torch.nn as nn
import torch.nn.functional as F


class ScaledCosineClassifier(nn.Module):
    """Cosine-similarity head with a learned temperature."""

    def __init__(self, in_features, num_classes, device="cuda"):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Linear(in_features, 256),
            nn.ReLU(),
            nn.Linear(256, 128),
        )
        self.prototypes = nn.Linear(128, num_classes, bias=False)
        self.log_temperature = nn.Parameter(torch.zeros(1, device=device))

    def forward(self, x):
        feats = F.normalize(self.backbone(x), dim=-1)
        weight = F.normalize(self.prototypes.weight, dim=-1)
        return feats @ weight.t() * self.log_temperature.exp()
