import torch
import torch.nn as nn
import torch.nn.functional as F


class EMAVectorQuantizer(nn.Module):
    """VQ codebook updated with exponential moving averages instead of gradients."""

    def __init__(self, n_embed, embedding_dim, beta=0.25, decay=0.99, eps=1e-5):
        super().__init__()
        self.n_embed = n_embed
        self.embedding_dim = embedding_dim
        self.beta = beta
        self.decay = decay
        self.eps = eps
        self.embedding = nn.Embedding(n_embed, embedding_dim)
        self.embedding.weight.requires_grad = False
        self.cluster_size = nn.Parameter(torch.zeros(n_embed), requires_grad=False)
        self.embed_avg = nn.Parameter(torch.Tensor(n_embed, embedding_dim), requires_grad=False)  # expect: TCK703
        self.embed_avg.data.copy_(self.embedding.weight.data)  # expect: TCK107

    def forward(self, z):
        z = z.permute(0, 2, 3, 1).contiguous()
        flat = z.view(-1, self.embedding_dim)
        d = (
            flat.pow(2).sum(1, keepdim=True)
            + self.embedding.weight.pow(2).sum(1)
            - 2 * flat @ self.embedding.weight.t()
        )
        idx = d.argmin(1)
        z_q = self.embedding(idx).view(z.shape)
        encodings = F.one_hot(idx, self.n_embed).type(z.dtype)

        if self.training:
            with torch.no_grad():
                self.cluster_size.mul_(self.decay).add_(encodings.sum(0), alpha=1 - self.decay)
                self.embed_avg.mul_(self.decay).add_(encodings.t() @ flat, alpha=1 - self.decay)
                n = self.cluster_size.sum()
                cluster_size = (self.cluster_size + self.eps) / (n + self.n_embed * self.eps) * n
                self.embedding.weight.copy_(self.embed_avg / cluster_size.unsqueeze(1))

        loss = self.beta * F.mse_loss(z_q.detach(), z)
        z_q = z + (z_q - z).detach()
        return z_q.permute(0, 3, 1, 2).contiguous(), loss, idx
