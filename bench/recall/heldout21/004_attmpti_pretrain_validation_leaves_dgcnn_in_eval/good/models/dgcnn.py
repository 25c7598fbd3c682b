"""DGCNN backbone: stacked EdgeConv blocks over k-nearest-neighbour graphs."""
import torch
import torch.nn as nn


def knn(x, k):
    inner = -2 * torch.matmul(x.transpose(2, 1), x)
    sq = torch.sum(x ** 2, dim=1, keepdim=True)
    dist = -sq - inner - sq.transpose(2, 1)
    return dist.topk(k=k, dim=-1)[1]


def edge_features(x, k):
    b, c, n = x.shape
    idx = knn(x, k).unsqueeze(1).expand(-1, c, -1, -1).reshape(b, c, n * k)
    neighbours = torch.gather(x, 2, idx).view(b, c, n, k)
    centre = x.unsqueeze(-1).expand(-1, -1, -1, k)
    return torch.cat((neighbours - centre, centre), dim=1)


def conv_stack(conv, bn, in_dim, widths):
    layers = []
    for out_dim in widths:
        layers += [conv(in_dim, out_dim, kernel_size=1, bias=False), bn(out_dim), nn.LeakyReLU(0.2)]
        in_dim = out_dim
    return nn.Sequential(*layers)


class DGCNN(nn.Module):
    def __init__(self, edgeconv_widths, mlp_widths, in_dim, k=20, return_edgeconvs=False):
        super().__init__()
        self.k = k
        self.return_edgeconvs = return_edgeconvs
        self.edge_convs = nn.ModuleList()
        dim = in_dim
        for widths in edgeconv_widths:
            self.edge_convs.append(conv_stack(nn.Conv2d, nn.BatchNorm2d, 2 * dim, widths))
            dim = widths[-1]
        total = sum(w[-1] for w in edgeconv_widths)
        self.mlp = conv_stack(nn.Conv1d, nn.BatchNorm1d, total, mlp_widths)

    def forward(self, x):
        feats = []
        for conv in self.edge_convs:
            x = conv(edge_features(x, self.k)).max(dim=-1)[0]
            feats.append(x)
        point_feat = self.mlp(torch.cat(feats, dim=1))
        if self.return_edgeconvs:
            return feats, point_feat
        return point_feat
