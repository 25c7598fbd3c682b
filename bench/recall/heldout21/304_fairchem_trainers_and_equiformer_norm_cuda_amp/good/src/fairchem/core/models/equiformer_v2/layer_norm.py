import torch
import torch.nn as nn


class EquivariantLayerNormArray(nn.Module):
    def __init__(self, lmax: int, num_channels: int, eps: float = 1e-5, affine: bool = True,
                 normalization: str = "component"):
        super().__init__()
        self.lmax = lmax
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        if affine:
            self.affine_weight = nn.Parameter(torch.ones(lmax + 1, num_channels))
            self.affine_bias = nn.Parameter(torch.zeros(num_channels))
        else:
            self.register_parameter("affine_weight", None)
            self.register_parameter("affine_bias", None)
        assert normalization in ["norm", "component"]
        self.normalization = normalization

    @torch.autocast("cuda", enabled=False)
    def forward(self, node_input):
        """node_input: [N, (lmax + 1) ** 2, C]; kept in float32 even under mixed precision."""
        out = []
        for lval in range(self.lmax + 1):
            feature = node_input.narrow(1, lval**2, 2 * lval + 1)
            if lval == 0:
                feature = feature - feature.mean(dim=2, keepdim=True)
            if self.normalization == "norm":
                feature_norm = feature.pow(2).sum(dim=1, keepdim=True)
            else:
                feature_norm = feature.pow(2).mean(dim=1, keepdim=True)
            feature_norm = (feature_norm.mean(dim=2, keepdim=True) + self.eps).pow(-0.5)
            if self.affine:
                feature_norm = feature_norm * self.affine_weight.narrow(0, lval, 1).view(1, 1, -1)
            feature = feature * feature_norm
            if self.affine and lval == 0:
                feature = feature + self.affine_bias.view(1, 1, -1)
            out.append(feature)
        return torch.cat(out, dim=1)


class TinyEquiformer(nn.Module):
    def __init__(self, lmax: int = 2, num_channels: int = 32, num_layers: int = 2):
        super().__init__()
        self.lmax = lmax
        self.embedding = nn.Linear(1, num_channels)
        self.blocks = nn.ModuleList([nn.Linear(num_channels, num_channels) for _ in range(num_layers)])
        self.norms = nn.ModuleList([EquivariantLayerNormArray(lmax, num_channels) for _ in range(num_layers)])
        self.energy_head = nn.Linear(num_channels, 1)

    def forward(self, batch):
        x = self.embedding(batch["sh"].unsqueeze(-1))
        for block, norm in zip(self.blocks, self.norms):
            x = x + norm(torch.nn.functional.silu(block(x)))
        energy = self.energy_head(x[:, 0]).squeeze(-1)
        return {"energy": torch.zeros(batch["natoms"].numel(), device=x.device).index_add(0, batch["batch"], energy)}
