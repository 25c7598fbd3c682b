import torch
import torch.nn.functional as F
from torch_geometric.nn import SAGEConv


class SAGE(torch.nn.Module):
    def __init__(self, in_channels, hidden, out_channels, num_layers, dropout):
        super().__init__()
        self.convs = torch.nn.ModuleList([SAGEConv(in_channels, hidden)])
        for _ in range(num_layers - 2):
            self.convs.append(SAGEConv(hidden, hidden))
        self.convs.append(SAGEConv(hidden, out_channels))
        self.dropout = dropout

    def reset_parameters(self):
        for conv in self.convs:
            conv.reset_parameters()

    def forward(self, x, adj_t):
        for conv in self.convs[:-1]:
            x = F.relu(conv(x, adj_t))
            x = F.dropout(x, p=self.dropout, training=self.training)
        return self.convs[-1](x, adj_t)


class EdgeScorer(torch.nn.Module):
    """MLP on the Hadamard product of two node embeddings -> edge probability."""

    def __init__(self, in_channels, hidden, num_layers, dropout):
        super().__init__()
        self.lins = torch.nn.ModuleList([torch.nn.Linear(in_channels, hidden)])
        for _ in range(num_layers - 2):
            self.lins.append(torch.nn.Linear(hidden, hidden))
        self.lins.append(torch.nn.Linear(hidden, 1))
        self.dropout = dropout

    def reset_parameters(self):
        for lin in self.lins:
            lin.reset_parameters()

    def forward(self, x_i, x_j):
        x = x_i * x_j
        for lin in self.lins[:-1]:
            x = F.relu(lin(x))
            x = F.dropout(x, p=self.dropout, training=self.training)
        return torch.sigmoid(self.lins[-1](x))
