from typing import List, Tuple

import torch
from torch import nn

from nuscenes.prediction.models.backbone import calculate_backbone_feature_dim

AGENT_STATE_DIM = 3


class CoverNet(nn.Module):
    """Scores every trajectory of a fixed lattice from a rasterised scene and the agent state."""

    def __init__(self, backbone: nn.Module, num_modes: int, hidden: List[int] = None,
                 input_shape: Tuple[int, int, int] = (3, 500, 500)):
        super().__init__()
        hidden = hidden or [4096]
        self.backbone = backbone
        feat_dim = calculate_backbone_feature_dim(backbone, input_shape)
        dims = [feat_dim + AGENT_STATE_DIM] + hidden + [num_modes]
        self.head = nn.ModuleList([nn.Linear(a, b) for a, b in zip(dims[:-1], dims[1:])])

    def forward(self, image, agent_state):
        logits = torch.cat([self.backbone(image), agent_state], dim=1)
        for layer in self.head:
            logits = layer(logits)
        return logits


def mean_pointwise_l2_distance(lattice: torch.Tensor, ground_truth: torch.Tensor) -> torch.Tensor:
    """Index of the lattice trajectory closest to the ground truth (mean L2 over time steps)."""
    stacked = ground_truth.repeat(lattice.shape[0], 1, 1)
    return torch.pow(lattice - stacked, 2).sum(dim=2).sqrt().mean(dim=1).argmin()
