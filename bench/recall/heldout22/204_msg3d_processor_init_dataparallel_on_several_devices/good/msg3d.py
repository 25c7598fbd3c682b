import torch
from torch import nn


class GraphConv(nn.Module):
    def __init__(self, in_channels, out_channels, num_joints):
        super().__init__()
        self.adj = nn.Parameter(torch.eye(num_joints) + 0.01 * torch.randn(num_joints, num_joints))
        self.proj = nn.Conv2d(in_channels, out_channels, 1)
        self.bn = nn.BatchNorm2d(out_channels)

    def forward(self, x):  # x: N, C, T, V
        x = torch.einsum("nctv,vw->nctw", x, self.adj.softmax(-1))
        return torch.relu(self.bn(self.proj(x)))


class Model(nn.Module):
    def __init__(self, num_class=60, num_point=25, num_person=2, in_channels=3):
        super().__init__()
        self.data_bn = nn.BatchNorm1d(num_person * in_channels * num_point)
        self.gcn1 = GraphConv(in_channels, 96, num_point)
        self.tcn1 = nn.Conv2d(96, 96, (9, 1), padding=(4, 0))
        self.gcn2 = GraphConv(96, 192, num_point)
        self.fc = nn.Linear(192, num_class)

    def forward(self, x):  # x: N, C, T, V, M
        n, c, t, v, m = x.shape
        x = x.permute(0, 4, 3, 1, 2).reshape(n, m * v * c, t)
        x = self.data_bn(x).reshape(n, m, v, c, t).permute(0, 1, 3, 4, 2).reshape(n * m, c, t, v)
        x = self.gcn2(torch.relu(self.tcn1(self.gcn1(x))))
        x = x.reshape(n, m, x.shape[1], -1).mean(3).mean(1)
        return self.fc(x)
