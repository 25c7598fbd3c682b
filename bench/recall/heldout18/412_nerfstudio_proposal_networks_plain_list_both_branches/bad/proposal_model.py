from dataclasses import dataclass
from typing import Dict, List

import torch
from torch import nn
from torch.nn import Parameter

from fields import DensityField, RadianceField


@dataclass
class ProposalModelConfig:
    use_same_proposal_network: bool = False
    num_proposal_network_iterations: int = 2
    num_samples: int = 48


class ProposalModel(nn.Module):
    def __init__(self, config: ProposalModelConfig, aabb: torch.Tensor):
        super().__init__()
        self.config = config
        self.field = RadianceField(aabb)

        # Build the proposal network(s)
        if self.config.use_same_proposal_network:
            network = DensityField(aabb)
            self.proposal_networks = [network]  # expect: TCK601
            self.density_fns = [network.density_fn for _ in range(self.config.num_proposal_network_iterations)]
        else:
            self.proposal_networks = []  # expect: TCK601
            for _ in range(self.config.num_proposal_network_iterations):
                network = DensityField(aabb)
                self.proposal_networks.append(network)
            self.density_fns = [network.density_fn for network in self.proposal_networks]

    def get_param_groups(self) -> Dict[str, List[Parameter]]:
        param_groups = {}
        proposal_networks_params = []
        for network in self.proposal_networks:
            proposal_networks_params += list(network.parameters())
        param_groups["proposal_networks"] = proposal_networks_params
        param_groups["fields"] = list(self.field.parameters())
        return param_groups

    def forward(self, origins, directions):
        t = torch.linspace(0.0, 1.0, self.config.num_samples, device=origins.device)
        positions = origins[:, None, :] + directions[:, None, :] * t[None, :, None]
        weights = None
        for density_fn in self.density_fns:
            weights = torch.softmax(-density_fn(positions).squeeze(-1), dim=-1)
        rgb, density = self.field(positions, directions[:, None, :].expand_as(positions))
        return (weights[..., None] * rgb).sum(dim=1), density


def train(model: ProposalModel, rays, target_rgb, steps=1000):
    groups = model.get_param_groups()
    optimizer = torch.optim.Adam(
        [{"params": groups["proposal_networks"], "lr": 1e-2}, {"params": groups["fields"], "lr": 1e-2}]
    )
    for _ in range(steps):
        rgb, _ = model(*rays)
        loss = torch.nn.functional.mse_loss(rgb, target_rgb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
