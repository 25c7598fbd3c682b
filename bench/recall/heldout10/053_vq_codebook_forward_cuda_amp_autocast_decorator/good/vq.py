import torch
import torch.nn.functional as F
from torch import nn


def l2norm(t):
    return F.normalize(t, p=2, dim=-1)


class EuclideanCodebook(nn.Module):
    def __init__(self, dim, codebook_size, decay=0.8, eps=1e-5):
        super().__init__()
        self.decay = decay
        self.eps = eps
        embed = torch.empty(codebook_size, dim)
        nn.init.kaiming_uniform_(embed)
        self.register_buffer("embed", embed)
        self.register_buffer("cluster_size", torch.zeros(codebook_size))
        self.register_buffer("embed_avg", embed.clone())

    @torch.amp.autocast("cuda", enabled=False)
    def forward(self, x):
        x = x.float()
        flatten = x.reshape(-1, x.shape[-1])
        dist = torch.cdist(flatten, self.embed)
        embed_ind = dist.argmin(dim=-1)
        onehot = F.one_hot(embed_ind, self.embed.shape[0]).type(x.dtype)
        quantize = F.embedding(embed_ind, self.embed).view_as(x)
        if self.training:
            self.cluster_size.lerp_(onehot.sum(0), 1 - self.decay)
            self.embed_avg.lerp_(onehot.t() @ flatten, 1 - self.decay)
            n = self.cluster_size.sum()
            smoothed = (self.cluster_size + self.eps) / (n + self.embed.shape[0] * self.eps) * n
            self.embed.copy_(self.embed_avg / smoothed.unsqueeze(1))
        return quantize, embed_ind.view(x.shape[:-1])


class CosineSimCodebook(nn.Module):
    def __init__(self, dim, codebook_size):
        super().__init__()
        self.embed = nn.Parameter(l2norm(torch.randn(codebook_size, dim)))

    @torch.amp.autocast("cuda", enabled=False)
    def forward(self, x):
        x = l2norm(x.float())
        sim = x @ l2norm(self.embed).t()
        embed_ind = sim.argmax(dim=-1)
        quantize = F.embedding(embed_ind, self.embed)
        return quantize, embed_ind


class VectorQuantize(nn.Module):
    def __init__(self, dim, codebook_size, use_cosine_sim=False, commitment_weight=0.25):
        super().__init__()
        codebook_cls = CosineSimCodebook if use_cosine_sim else EuclideanCodebook
        self.codebook = codebook_cls(dim, codebook_size)
        self.commitment_weight = commitment_weight

    def forward(self, x):
        quantize, indices = self.codebook(x)
        commit_loss = F.mse_loss(quantize.detach(), x) * self.commitment_weight
        quantize = x + (quantize - x).detach()
        return quantize, indices, commit_loss
