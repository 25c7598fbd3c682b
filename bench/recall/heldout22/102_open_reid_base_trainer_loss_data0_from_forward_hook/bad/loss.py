import torch
from torch import nn


class TripletLoss(nn.Module):
    """Batch-hard triplet loss; also returns the fraction of anchors ranked correctly."""

    def __init__(self, margin=0):
        super(TripletLoss, self).__init__()
        self.margin = margin
        self.ranking_loss = nn.MarginRankingLoss(margin=margin)

    def forward(self, inputs, targets):
        n = inputs.size(0)
        sq = inputs.pow(2).sum(dim=1, keepdim=True).expand(n, n)
        dist = (sq + sq.t() - 2 * inputs @ inputs.t()).clamp(min=1e-12).sqrt()
        same = targets.expand(n, n).eq(targets.expand(n, n).t())
        dist_ap = torch.stack([dist[i][same[i]].max() for i in range(n)])
        dist_an = torch.stack([dist[i][~same[i]].min() for i in range(n)])
        y = torch.ones_like(dist_an)
        loss = self.ranking_loss(dist_an, dist_ap, y)
        prec = (dist_an.detach() > dist_ap.detach()).float().mean().item()
        return loss, prec
