import torch
import torch.nn as nn

from mlp import RES_MLP


class RESMLPS(nn.Module):
    def __init__(self, in_dim, out_dim, hidden_list, coord_hidden_list):
        super().__init__()
        self.mlps = nn.ModuleList([RES_MLP(in_dim, out_dim, coord_hidden_list) for _ in range(10)])
        self.coord_mlp = RES_MLP(2, 16, hidden_list)
        self.mix = nn.Linear(16, 10)

    def forward(self, x, coord):
        weights = torch.softmax(self.mix(self.coord_mlp(coord)), dim=-1)
        preds = torch.stack([mlp(x) for mlp in self.mlps], dim=-1)
        return (preds * weights.unsqueeze(-2)).sum(-1)
