import torch
from torch import nn


class VAEAnomalyDetection(nn.Module):
    def __init__(self, input_size, latent_size, device=None):
        super().__init__()
        self.device = device
        self.encoder = nn.Linear(input_size, 2 * latent_size)
        self.decoder = nn.Linear(latent_size, input_size)

    def forward(self, x):
        mu, log_var = self.encoder(x).chunk(2, dim=-1)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * log_var)
        recon = self.decoder(z)
        kl = -0.5 * torch.sum(1 + log_var - mu.pow(2) - log_var.exp(), dim=-1).mean()
        return ((recon - x) ** 2).sum(-1).mean() + kl

    def training_step(self, batch, optimizer):
        x = batch
        if self.device:
            x = x.to(device=self.device)
        loss = self(x)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return loss.item()
