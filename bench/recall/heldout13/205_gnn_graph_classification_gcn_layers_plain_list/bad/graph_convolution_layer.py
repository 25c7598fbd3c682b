import math

import torch
from torch.nn.modules.module import Module
from torch.nn.parameter import Parameter


class GraphConvolutionLayer(Module):
    """Dense-adjacency graph convolution (Kipf & Welling)."""

    def __init__(self, in_features, out_features, bias=True):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(torch.empty(in_features, out_features))
        if bias:
            self.bias = Parameter(torch.empty(out_features))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.weight.size(1))
        torch.nn.init.uniform_(self.weight, -stdv, stdv)
        if self.bias is not None:
            torch.nn.init.uniform_(self.bias, -stdv, stdv)

    def forward(self, x, adj):
        batch, nodes, feat = x.shape
        support = torch.mm(x.reshape(batch * nodes, feat), self.weight)
        output = torch.bmm(adj, support.reshape(batch, nodes, self.out_features))
        if self.bias is not None:
            output = output + self.bias
        return output
