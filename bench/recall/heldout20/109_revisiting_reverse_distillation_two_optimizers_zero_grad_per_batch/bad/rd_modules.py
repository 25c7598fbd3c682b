import torch
import torch.nn as nn
import torch.nn.functional as F


class MultiProjectionLayer(nn.Module):
    """Projects each encoder stage to a compact space; also returns the projection of the noisy features."""

    def __init__(self, channels=(64, 128, 256)):
        super().__init__()
        self.proj = nn.ModuleList([nn.Sequential(nn.Conv2d(c, c, 1), nn.BatchNorm2d(c), nn.ReLU()) for c in channels])

    def forward(self, features, features_noise=None):
        clean = [p(f) for p, f in zip(self.proj, features)]
        if features_noise is None:
            return clean
        return [p(f) for p, f in zip(self.proj, features_noise)], clean


class ProjectionContrastLoss(nn.Module):
    def forward(self, noisy_inputs, projected_noisy, projected_clean):
        loss = 0.0
        for n, pn, pc in zip(noisy_inputs, projected_noisy, projected_clean):
            loss = loss + F.mse_loss(pn, pc.detach()) + 0.1 * F.mse_loss(pn, n.detach())
        return loss


def distill_loss(teacher_feats, student_feats):
    loss = 0.0
    for t, s in zip(teacher_feats, student_feats):
        loss = loss + torch.mean(1 - F.cosine_similarity(t.flatten(1), s.flatten(1)))
    return loss


class Bottleneck(nn.Module):
    def __init__(self, channels=(64, 128, 256), out=256):
        super().__init__()
        self.fuse = nn.Conv2d(sum(channels), out, 1)

    def forward(self, feats):
        size = feats[-1].shape[-2:]
        return self.fuse(torch.cat([F.adaptive_avg_pool2d(f, size) for f in feats], 1))


class Decoder(nn.Module):
    def __init__(self, channels=(64, 128, 256), inner=256):
        super().__init__()
        self.heads = nn.ModuleList([nn.Conv2d(inner, c, 3, padding=1) for c in channels])

    def forward(self, z, sizes):
        return [head(F.interpolate(z, size=s)) for head, s in zip(self.heads, sizes)]


class Encoder(nn.Module):
    def __init__(self, channels=(64, 128, 256)):
        super().__init__()
        stages, in_ch = [], 3
        for c in channels:
            stages.append(nn.Sequential(nn.Conv2d(in_ch, c, 3, stride=2, padding=1), nn.ReLU()))
            in_ch = c
        self.stages = nn.ModuleList(stages)

    def forward(self, x):
        feats = []
        for stage in self.stages:
            x = stage(x)
            feats.append(x)
        return feats
