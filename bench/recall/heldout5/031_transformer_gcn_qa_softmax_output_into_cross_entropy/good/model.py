import torch
import torch.nn as nn
import torch.nn.functional as F


class TransformerGCNQA(nn.Module):
    def __init__(self, encoder, gcn, hidden_size=512):
        super().__init__()
        self.encoder = encoder
        self.gcn = gcn
        self.fc = nn.Linear(hidden_size, 1)

    def forward(self, query, candidates, graph):
        nodes = self.gcn(self.encoder(query, candidates), graph)
        return self.fc(nodes).squeeze(-1)
