import torch
import torch.nn as nn
import torch.nn.functional as F


class PriorNetwork(nn.Module):
    """Small transformer that predicts an image embedding from a noised one and a text embedding."""

    def __init__(self, dim=768, depth=6, heads=8, attn_dropout=0.05, ff_dropout=0.05):
        super().__init__()
        layer = nn.TransformerEncoderLayer(dim, heads, dim_feedforward=4 * dim, dropout=ff_dropout,
                                           batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, depth)
        self.time_embed = nn.Embedding(1000, dim)
        self.attn_dropout = nn.Dropout(attn_dropout)
        self.out = nn.Linear(dim, dim)

    def forward(self, noised_image_embed, text_embed, t):
        tokens = torch.stack([text_embed, self.time_embed(t), noised_image_embed], dim=1)
        h = self.encoder(self.attn_dropout(tokens))
        return self.out(h[:, -1])


class DiffusionPrior(nn.Module):
    def __init__(self, net, timesteps=1000, cond_drop_prob=0.2):
        super().__init__()
        self.net = net
        self.timesteps = timesteps
        self.cond_drop_prob = cond_drop_prob
        betas = torch.linspace(1e-4, 0.02, timesteps)
        self.register_buffer("alphas_cumprod", torch.cumprod(1.0 - betas, dim=0))

    def forward(self, text_embed, image_embed):
        b = image_embed.shape[0]
        t = torch.randint(0, self.timesteps, (b,), device=image_embed.device)
        noise = torch.randn_like(image_embed)
        a = self.alphas_cumprod[t].unsqueeze(-1)
        noised = a.sqrt() * image_embed + (1 - a).sqrt() * noise
        if self.training and self.cond_drop_prob > 0:
            keep = (torch.rand(b, 1, device=text_embed.device) > self.cond_drop_prob).float()
            text_embed = text_embed * keep
        pred = self.net(noised, text_embed, t)
        return F.mse_loss(pred, image_embed)
