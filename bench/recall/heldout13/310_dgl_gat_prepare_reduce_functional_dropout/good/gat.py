"""Graph Attention Network with DGL message passing (per-head prepare / reduce / finalize modules)."""
import torch
import torch.nn.functional as F
from torch import nn


def gat_message(edges):
    return {"ft": edges.src["ft"], "a2": edges.src["a2"]}


class GATPrepare(nn.Module):
    def __init__(self, indim, hiddendim, drop):
        super().__init__()
        self.fc = nn.Linear(indim, hiddendim, bias=False)
        self.drop = nn.Dropout(drop) if drop else None
        self.attn_l = nn.Linear(hiddendim, 1, bias=False)
        self.attn_r = nn.Linear(hiddendim, 1, bias=False)

    def forward(self, feats):
        h = feats
        if self.drop is not None:
            h = self.drop(h)
        ft = self.fc(h)
        return {"h": h, "ft": ft, "a1": self.attn_l(ft), "a2": self.attn_r(ft)}


class GATReduce(nn.Module):
    def __init__(self, attn_drop):
        super().__init__()
        self.attn_drop = nn.Dropout(attn_drop) if attn_drop else None

    def forward(self, nodes):
        a1 = torch.unsqueeze(nodes.data["a1"], 1)  # (B, 1, 1)
        a2 = nodes.mailbox["a2"]  # (B, deg, 1)
        ft = nodes.mailbox["ft"]  # (B, deg, D)
        e = F.softmax(F.leaky_relu(a1 + a2), dim=1)
        if self.attn_drop is not None:
            e = self.attn_drop(e)
        return {"accum": torch.sum(e * ft, dim=1)}


class GATFinalize(nn.Module):
    def __init__(self, headid, activation):
        super().__init__()
        self.headid = headid
        self.activation = activation

    def forward(self, nodes):
        return {"head%d" % self.headid: self.activation(nodes.data["accum"])}


class GAT(nn.Module):
    def __init__(self, g, num_layers, in_dim, num_hidden, num_classes, num_heads, activation, in_drop, attn_drop):
        super().__init__()
        self.g = g
        self.num_layers = num_layers
        self.num_heads = num_heads
        self.prp = nn.ModuleList()
        self.red = nn.ModuleList()
        self.fnl = nn.ModuleList()
        dims = [in_dim] + [num_hidden * num_heads] * (num_layers - 1)
        for layer_in in dims:
            for hid in range(num_heads):
                self.prp.append(GATPrepare(layer_in, num_hidden, in_drop))
                self.red.append(GATReduce(attn_drop))
                self.fnl.append(GATFinalize(hid, activation))
        self.prp.append(GATPrepare(num_hidden * num_heads, num_classes, in_drop))
        self.red.append(GATReduce(attn_drop))
        self.fnl.append(GATFinalize(0, lambda x: x))

    def forward(self, features):
        last = features
        for layer in range(self.num_layers):
            for hid in range(self.num_heads):
                i = layer * self.num_heads + hid
                self.g.ndata.update(self.prp[i](last))
                self.g.update_all(gat_message, self.red[i], self.fnl[i])
            last = torch.cat([self.g.ndata.pop("head%d" % hid) for hid in range(self.num_heads)], dim=1)
        self.g.ndata.update(self.prp[-1](last))
        self.g.update_all(gat_message, self.red[-1], self.fnl[-1])
        return self.g.ndata.pop("head0")
