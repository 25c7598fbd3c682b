import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn import Parameter
from torch_geometric.nn import MessagePassing
from torch_geometric.utils import get_laplacian, remove_self_loops


class ChebConvAttention(MessagePassing):
    """Chebyshev graph convolution whose support is modulated by a spatial attention matrix."""

    def __init__(self, in_channels, out_channels, K, bias=True):
        super().__init__(aggr="add", node_dim=1)
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.K = K
        self.weight = Parameter(torch.empty(K, in_channels, out_channels))
        if bias:
            self.bias = Parameter(torch.empty(out_channels))
        else:
            self.register_parameter("bias", None)
        self._reset_parameters()

    def _reset_parameters(self):
        nn.init.xavier_uniform_(self.weight)
        if self.bias is not None:
            nn.init.uniform_(self.bias)

    def forward(self, x, edge_index, spatial_attention):
        edge_index, _ = remove_self_loops(edge_index)
        edge_index, norm = get_laplacian(edge_index, normalization="sym", num_nodes=x.size(1))
        row, col = edge_index
        att_norm = norm * spatial_attention[:, row, col]
        tx_0 = x
        out = torch.matmul(tx_0, self.weight[0])
        if self.K > 1:
            tx_1 = self.propagate(edge_index, x=x, norm=att_norm)
            out = out + torch.matmul(tx_1, self.weight[1])
        for k in range(2, self.K):
            tx_2 = 2.0 * self.propagate(edge_index, x=tx_1, norm=att_norm) - tx_0
            out = out + torch.matmul(tx_2, self.weight[k])
            tx_0, tx_1 = tx_1, tx_2
        if self.bias is not None:
            out = out + self.bias
        return out

    def message(self, x_j, norm):
        return norm.unsqueeze(-1) * x_j


class SpatialAttention(nn.Module):
    def __init__(self, in_channels, num_nodes):
        super().__init__()
        self.w1 = nn.Linear(in_channels, 1)
        self.vs = Parameter(torch.empty(num_nodes, num_nodes))
        nn.init.xavier_uniform_(self.vs)

    def forward(self, x):
        score = self.w1(x).squeeze(-1)
        scores = torch.sigmoid(score.unsqueeze(-1) + score.unsqueeze(-2)) @ self.vs
        return F.softmax(scores, dim=-1)


class ASTGCN(nn.Module):
    def __init__(self, in_channels, hidden, K, num_nodes, horizon):
        super().__init__()
        self.attention = SpatialAttention(in_channels, num_nodes)
        self.cheb = ChebConvAttention(in_channels, hidden, K)
        self.head = nn.Linear(hidden, horizon)

    def forward(self, x, edge_index):
        att = self.attention(x)
        h = F.relu(self.cheb(x, edge_index, att))
        return self.head(h)
