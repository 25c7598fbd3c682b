import torch
import torch.nn.functional as F
from dgl.nn.pytorch import GraphConv
from torch import nn


class TemporalConvLayer(nn.Module):
    def __init__(self, c_in, c_out, dia=1):
        super().__init__()
        self.conv = nn.Conv2d(c_in, c_out, (2, 1), 1, dilation=dia, padding=(0, 0))

    def forward(self, x):
        return torch.relu(self.conv(x))


class SpatioConvLayer(nn.Module):
    def __init__(self, c, graph):
        super().__init__()
        self.g = graph
        self.gc = GraphConv(c, c, activation=F.relu)

    def forward(self, x):
        # (batch, channels, time, nodes) -> (nodes, time, batch, channels) for the graph conv
        x = x.permute(3, 2, 0, 1)
        out = self.gc(self.g, x)
        return torch.relu(out.permute(2, 3, 1, 0))


class OutputLayer(nn.Module):
    def __init__(self, c, T, n):
        super().__init__()
        self.tconv1 = nn.Conv2d(c, c, (T, 1))
        self.ln = nn.LayerNorm([n, c])
        self.tconv2 = nn.Conv2d(c, c, (1, 1))
        self.fc = nn.Conv2d(c, 1, 1)

    def forward(self, x):
        x = self.tconv1(x)
        x = self.ln(x.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)
        return self.fc(self.tconv2(x))


class STGCN_WAVE(nn.Module):
    def __init__(self, c, T, n, graph, device, control_str="TNTSTNTST"):
        super().__init__()
        self.control_str = control_str
        self.num_layers = len(control_str)
        self.layers = nn.ModuleList([])
        cnt = 0
        diapower = 0
        for layer_type in control_str:
            if layer_type == "T":
                self.layers.append(TemporalConvLayer(c[cnt], c[cnt + 1], dia=2 ** diapower))
                diapower += 1
                cnt += 1
            if layer_type == "S":
                self.layers.append(SpatioConvLayer(c[cnt], graph))
            if layer_type == "N":
                self.layers.append(nn.LayerNorm([n, c[cnt]]))
        self.output = OutputLayer(c[cnt], T + 1 - 2 ** diapower, n)
        for layer in self.layers:
            layer = layer.to(device)

    def forward(self, x):
        for i, layer_type in enumerate(self.control_str):
            if layer_type == "N":
                x = self.layers[i](x.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)
            else:
                x = self.layers[i](x)
        return self.output(x)
