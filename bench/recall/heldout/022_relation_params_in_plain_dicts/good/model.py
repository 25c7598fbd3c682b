import torch
from torch import nn


class RelationNet(nn.Module):
    def __init__(self, numfeatures, numrel, num_relations=10):
        super().__init__()
        self.waggrs = nn.ModuleDict()
        self.list_relations = nn.ModuleDict()
        for rel in range(num_relations):
            self.waggrs[str(rel)] = nn.ParameterDict({"w": nn.Parameter(1.0 + torch.randn(1, 2)), "b": nn.Parameter(torch.zeros(1, 4))})
            self.list_relations[str(rel)] = nn.Linear(numfeatures, numrel)

    def forward(self, x, rel):
        params = self.waggrs[str(rel)]
        return self.list_relations[str(rel)](x) * params["w"].sum() + params["b"].sum()
