import torch
import torch.nn.functional as F
from torch import nn
from torch.amp import autocast


def l2_distance(x, codes):
    # x: (h, n, d), codes: (h, c, d)
    x2 = (x ** 2).sum(dim=-1, keepdim=True)
    c2 = (codes ** 2).sum(dim=-1).unsqueeze(1)
    return x2 - 2 * torch.einsum("hnd,hcd->hnc", x, codes) + c2


class EuclideanCodebook(nn.Module):
    """Codebook of a residual VQ used by the behaviour-transformer policy."""

    def __init__(self, dim, codebook_size, num_codebooks=1, decay=0.99, eps=1e-5):
        super().__init__()
        self.decay = decay
        self.eps = eps
        embed = torch.randn(num_codebooks, codebook_size, dim)
        self.register_buffer("embed", embed)
        self.register_buffer("embed_avg", embed.clone())
        self.register_buffer("cluster_size", torch.zeros(num_codebooks, codebook_size))

    @autocast("cuda", enabled=False)
    def forward(self, x):
        x = x.float()
        needs_codebook_dim = x.ndim < 3
        if needs_codebook_dim:
            x = x.unsqueeze(0)
        dist = -l2_distance(x, self.embed)
        embed_ind = dist.argmax(dim=-1)
        onehot = F.one_hot(embed_ind, self.embed.shape[1]).type(x.dtype)
        quantize = torch.einsum("hnc,hcd->hnd", onehot, self.embed)
        if self.training:
            cluster_size = onehot.sum(dim=1)
            self.cluster_size.mul_(self.decay).add_(cluster_size, alpha=1 - self.decay)
            embed_sum = torch.einsum("hnd,hnc->hcd", x, onehot)
            self.embed_avg.mul_(self.decay).add_(embed_sum, alpha=1 - self.decay)
            n = self.cluster_size.sum(dim=-1, keepdim=True)
            smoothed = (self.cluster_size + self.eps) / (n + self.embed.shape[1] * self.eps) * n
            self.embed.copy_(self.embed_avg / smoothed.unsqueeze(-1))
        if needs_codebook_dim:
            quantize, embed_ind = quantize.squeeze(0), embed_ind.squeeze(0)
        return quantize, embed_ind


class ResidualVQ(nn.Module):
    def __init__(self, dim, codebook_size, num_layers=2):
        super().__init__()
        self.layers = nn.ModuleList(EuclideanCodebook(dim, codebook_size) for _ in range(num_layers))

    def forward(self, x):
        residual = x
        quantized_out = torch.zeros_like(x)
        indices = []
        for layer in self.layers:
            quantized, idx = layer(residual)
            residual = residual - quantized.detach()
            quantized_out = quantized_out + quantized
            indices.append(idx)
        commit_loss = F.mse_loss(quantized_out.detach(), x)
        quantized_out = x + (quantized_out - x).detach()
        return quantized_out, torch.stack(indices, dim=-1), commit_loss
