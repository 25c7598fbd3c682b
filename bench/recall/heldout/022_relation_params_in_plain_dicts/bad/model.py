import torch
from torch import nn


class RelationNet(nn.Module):
    def __init__(self, numfeatures, numrel, num_relations=10):
        super().__init__()
        self.waggrs = {}  # expect: TCK602
        self.list_relations = {}  # expect: TCK601
        for rel in range(num_relations):
            self.waggrs[rel] = {"w": nn.Parameter(1.0 + torch.randn(1, 2)), "b": nn.Parameter(torch.zeros(1, 4))}
            self.list_relations[rel] = nn.Linear(numfeatures, numrel)

    def forward(self, x, rel):
        return self.list_relations[rel](x) * self.waggrs[rel]["w"].sum() + self.waggrs[rel]["b"].sum()
