import torch
import torch.nn as nn
import torch.nn.functional as F
from torch_geometric.nn import GCNConv, global_mean_pool


class GNN(nn.Module):
    """Graph classifier: message-passing layers, mean pooling, MLP head."""

    def __init__(self, dim_in, dim_out, dim_inner=128, num_layers=3, dropout=0.2):
        super().__init__()
        self.pre = nn.Linear(dim_in, dim_inner)
        self.convs = nn.ModuleList([GCNConv(dim_inner, dim_inner) for _ in range(num_layers)])
        self.norms = nn.ModuleList([nn.BatchNorm1d(dim_inner) for _ in range(num_layers)])
        self.dropout = nn.Dropout(dropout)
        self.head = nn.Linear(dim_inner, dim_out)

    def forward(self, batch):
        x = self.pre(batch.x)
        for conv, norm in zip(self.convs, self.norms):
            x = x + self.dropout(F.relu(norm(conv(x, batch.edge_index))))
        pred = self.head(global_mean_pool(x, batch.batch))
        return pred, batch.y


def compute_loss(pred, true):
    if pred.size(-1) == 1:
        true = true.float().view(-1, 1)
        return F.binary_cross_entropy_with_logits(pred, true), torch.sigmoid(pred)
    return F.cross_entropy(pred, true), F.softmax(pred, dim=-1)
