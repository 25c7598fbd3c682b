import torch.nn as nn
import torch.nn.functional as F

from graph_convolution_layer import GraphConvolutionLayer


def readout(x, kind):
    if kind == "max":
        return x.max(dim=1).values
    if kind == "sum":
        return x.sum(dim=1)
    return x.mean(dim=1)


class GCN(nn.Module):
    def __init__(self, n_feat, n_class, n_layer, agg_hidden, fc_hidden, dropout, readout):
        super().__init__()
        self.n_layer = n_layer
        self.dropout = dropout
        self.readout = readout

        self.graph_convolution_layers = nn.ModuleList()
        for i in range(n_layer):
            if i == 0:
                self.graph_convolution_layers.append(GraphConvolutionLayer(n_feat, agg_hidden))
            else:
                self.graph_convolution_layers.append(GraphConvolutionLayer(agg_hidden, agg_hidden))

        self.fc1 = nn.Linear(agg_hidden, fc_hidden)
        self.fc2 = nn.Linear(fc_hidden, n_class)

    def forward(self, x, adj):
        for i in range(self.n_layer):
            x = F.relu(self.graph_convolution_layers[i](x, adj))
            if i != self.n_layer - 1:
                x = F.dropout(x, p=self.dropout, training=self.training)
        x = readout(x, self.readout)
        x = F.relu(self.fc1(x))
        return self.fc2(x)
