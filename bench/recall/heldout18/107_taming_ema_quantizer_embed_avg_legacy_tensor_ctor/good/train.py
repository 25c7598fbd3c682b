import torch
import torch.nn as nn
import torch.nn.functional as F

from quantize import EMAVectorQuantizer


class VQAutoencoder(nn.Module):
    def __init__(self, n_embed=1024, embed_dim=64):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(3, 128, 4, 2, 1), nn.ReLU(), nn.Conv2d(128, embed_dim, 4, 2, 1))
        self.quantize = EMAVectorQuantizer(n_embed, embed_dim)
        self.decoder = nn.Sequential(nn.ConvTranspose2d(embed_dim, 128, 4, 2, 1), nn.ReLU(), nn.ConvTranspose2d(128, 3, 4, 2, 1))

    def forward(self, x):
        z_q, qloss, _ = self.quantize(self.encoder(x))
        return self.decoder(z_q), qloss


def train(loader, epochs=50):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = VQAutoencoder().to(device)
    opt = torch.optim.Adam(model.parameters(), lr=2e-4)
    for epoch in range(epochs):
        model.train()
        for x, _ in loader:
            x = x.to(device)
            rec, qloss = model(x)
            loss = F.mse_loss(rec, x) + qloss
            opt.zero_grad()
            loss.backward()
            opt.step()
