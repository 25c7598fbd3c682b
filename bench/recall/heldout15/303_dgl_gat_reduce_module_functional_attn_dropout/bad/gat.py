"""Graph attention network written as DGL message / reduce modules."""
import torch
import torch.nn as nn
import torch.nn.functional as F


def gat_message(edges):
    return {"ft": edges.src["ft"], "a2": edges.src["a2"]}


class GATReduce(nn.Module):
    """Reduce function: attention-weighted sum of the neighbours' features."""

    def __init__(self, attn_drop):
        super(GATReduce, self).__init__()
        self.attn_drop = attn_drop

    def forward(self, nodes):
        a1 = torch.unsqueeze(nodes.data["a1"], 1)
        a2 = nodes.mailbox["a2"]
        ft = nodes.mailbox["ft"]
        e = F.softmax(F.leaky_relu(a1 + a2), dim=1)
        if self.attn_drop != 0.0:
            e = F.dropout(e, self.attn_drop)  # expect: TCK604
        return {"accum": torch.sum(e * ft, dim=1)}


class GATFinalize(nn.Module):
    def __init__(self, heads, indim, hiddendim, activation, residual):
        super(GATFinalize, self).__init__()
        self.heads = heads
        self.activation = activation
        self.residual_fc = None
        if residual and indim != hiddendim:
            self.residual_fc = nn.Linear(indim, hiddendim, bias=False)

    def forward(self, nodes):
        ret = nodes.data["accum"]
        if self.residual_fc is not None:
            ret = self.residual_fc(nodes.data["h"]) + ret
        elif "h" in nodes.data and nodes.data["h"].shape == ret.shape:
            ret = nodes.data["h"] + ret
        return {"head%d" % self.heads: self.activation(ret)}


class GATPrepare(nn.Module):
    def __init__(self, indim, hiddendim, drop):
        super(GATPrepare, self).__init__()
        self.fc = nn.Linear(indim, hiddendim, bias=False)
        self.drop = nn.Dropout(drop) if drop else nn.Identity()
        self.attn_l = nn.Linear(hiddendim, 1, bias=False)
        self.attn_r = nn.Linear(hiddendim, 1, bias=False)

    def forward(self, feats):
        h = self.drop(feats)
        ft = self.fc(h)
        return {"h": h, "ft": ft, "a1": self.attn_l(ft), "a2": self.attn_r(ft)}


class GAT(nn.Module):
    def __init__(self, g, num_layers, in_dim, num_hidden, num_classes, num_heads,
                 activation, in_drop, attn_drop, residual):
        super(GAT, self).__init__()
        self.g = g
        self.num_layers = num_layers
        self.num_heads = num_heads
        self.prp = nn.ModuleList()
        self.red = nn.ModuleList()
        self.fnl = nn.ModuleList()
        for layer in range(num_layers):
            indim = in_dim if layer == 0 else num_hidden * num_heads
            for head in range(num_heads):
                self.prp.append(GATPrepare(indim, num_hidden, in_drop))
                self.red.append(GATReduce(attn_drop))
                self.fnl.append(GATFinalize(head, indim, num_hidden, activation, residual))
        self.prp.append(GATPrepare(num_hidden * num_heads, num_classes, in_drop))
        self.red.append(GATReduce(attn_drop))
        self.fnl.append(GATFinalize(0, num_hidden * num_heads, num_classes, lambda x: x, residual))

    def forward(self, features):
        last = features
        for layer in range(self.num_layers):
            for head in range(self.num_heads):
                i = layer * self.num_heads + head
                self.g.ndata.update(self.prp[i](last))
                self.g.update_all(gat_message, self.red[i], self.fnl[i])
            last = torch.cat([self.g.ndata.pop("head%d" % h) for h in range(self.num_heads)], dim=1)
        self.g.ndata.update(self.prp[-1](last))
        self.g.update_all(gat_message, self.red[-1], self.fnl[-1])
        return self.g.ndata.pop("head0")
