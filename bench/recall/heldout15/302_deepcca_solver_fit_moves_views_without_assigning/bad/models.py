import torch
import torch.nn as nn


class MlpNet(nn.Module):
    def __init__(self, layer_sizes, input_size):
        super().__init__()
        sizes = [input_size] + layer_sizes
        layers = []
        for i in range(len(sizes) - 1):
            layers.append(nn.Linear(sizes[i], sizes[i + 1]))
            if i < len(sizes) - 2:
                layers.append(nn.Sigmoid())
                layers.append(nn.BatchNorm1d(sizes[i + 1], affine=False))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


class CCALoss:
    """Negative total correlation between the two projected views."""

    def __init__(self, outdim_size, use_all_singular_values=False, eps=1e-9, reg=1e-3):
        self.outdim_size = outdim_size
        self.use_all = use_all_singular_values
        self.eps = eps
        self.reg = reg

    def __call__(self, h1, h2):
        n = h1.size(0)
        h1 = h1 - h1.mean(dim=0, keepdim=True)
        h2 = h2 - h2.mean(dim=0, keepdim=True)
        eye1 = torch.eye(h1.size(1), device=h1.device, dtype=h1.dtype)
        eye2 = torch.eye(h2.size(1), device=h2.device, dtype=h2.dtype)
        s11 = h1.t() @ h1 / (n - 1) + self.reg * eye1
        s22 = h2.t() @ h2 / (n - 1) + self.reg * eye2
        s12 = h1.t() @ h2 / (n - 1)
        d1, v1 = torch.linalg.eigh(s11)
        d2, v2 = torch.linalg.eigh(s22)
        s11_isqrt = v1 @ torch.diag(d1.clamp_min(self.eps) ** -0.5) @ v1.t()
        s22_isqrt = v2 @ torch.diag(d2.clamp_min(self.eps) ** -0.5) @ v2.t()
        t = s11_isqrt @ s12 @ s22_isqrt
        if self.use_all:
            return -torch.linalg.svdvals(t).sum()
        return -torch.linalg.svdvals(t)[: self.outdim_size].sum()


class DeepCCA(nn.Module):
    def __init__(self, layers1, layers2, input1, input2, outdim_size):
        super().__init__()
        self.model1 = MlpNet(layers1, input1)
        self.model2 = MlpNet(layers2, input2)
        self.loss = CCALoss(outdim_size)

    def forward(self, x1, x2):
        return self.model1(x1), self.model2(x2)
