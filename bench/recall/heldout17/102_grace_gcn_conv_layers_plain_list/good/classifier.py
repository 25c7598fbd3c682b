import torch
import torch.nn.functional as F
from torch.nn import Linear, ModuleList
from torch_geometric.nn import GCNConv


class GCN(torch.nn.Module):
    """Node and edge classifier on top of a stack of graph convolutions."""

    def __init__(self, input_channels, hidden_channels, *, dropout=0.0,
                 node_output_classes=2, edge_output_classes=2):
        super().__init__()
        sizes = [input_channels] + list(hidden_channels)
        self.conv_layer_list = ModuleList([GCNConv(sizes[i], sizes[i + 1]) for i in range(len(sizes) - 1)])
        self.node_classifier = Linear(sizes[-1], node_output_classes)
        self.edge_classifier = Linear(sizes[-1] * 2, edge_output_classes)
        self.dropout = dropout

    def forward(self, x, edge_index):
        for i, conv in enumerate(self.conv_layer_list):
            x = conv(x, edge_index)
            if i < len(self.conv_layer_list) - 1:
                x = x.relu()
        x = F.dropout(x, p=self.dropout, training=self.training)
        node_logits = self.node_classifier(x)
        src, dst = edge_index
        edge_feats = torch.cat([x[src], x[dst]], dim=-1)
        edge_logits = self.edge_classifier(edge_feats)
        return node_logits, edge_logits
