import torch
import torch.nn as nn


class DetectHead(nn.Module):
    """Anchor-based detection head: one 1x1 conv per feature level."""

    def __init__(self, num_classes=80, anchors=(), channels=()):
        super().__init__()
        self.no = num_classes + 5
        self.nl = len(anchors)
        self.na = len(anchors[0]) // 2
        self.register_buffer("anchors", torch.tensor(anchors, dtype=torch.float32).view(self.nl, -1, 2))
        self.stride = torch.tensor([8.0, 16.0, 32.0])[: self.nl]
        self.grid = [torch.empty(0) for _ in range(self.nl)]
        self.m = nn.ModuleList(nn.Conv2d(c, self.no * self.na, 1) for c in channels)

    def _build_grid(self, nx, ny, i):
        dev = self.anchors[i].device
        ys = torch.arange(ny, device=dev)
        xs = torch.arange(nx, device=dev)
        yv, xv = torch.meshgrid(ys, xs, indexing="ij")
        return torch.stack((xv, yv), 2).view(1, 1, ny, nx, 2).float()

    def forward(self, feats):
        outs = []
        for i, x in enumerate(feats):
            x = self.m[i](x)
            bs, _, ny, nx = x.shape
            x = x.view(bs, self.na, self.no, ny, nx).permute(0, 1, 3, 4, 2).contiguous()
            if not self.training:
                if self.grid[i].shape[2:4] != x.shape[2:4]:
                    self.grid[i] = self._build_grid(nx, ny, i)
                xy = (x[..., :2].sigmoid() * 2 - 0.5 + self.grid[i]) * self.stride[i]
                x = torch.cat((xy, x[..., 2:]), -1)
            outs.append(x)
        return outs
