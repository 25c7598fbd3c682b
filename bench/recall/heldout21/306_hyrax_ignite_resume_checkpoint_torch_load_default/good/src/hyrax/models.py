import torch
import torch.nn as nn


class HyraxAutoencoder(nn.Module):
    def __init__(self, in_features=256, latent=16, lr=1e-3):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(in_features, 64), nn.ReLU(), nn.Linear(64, latent))
        self.decoder = nn.Sequential(nn.Linear(latent, 64), nn.ReLU(), nn.Linear(64, in_features))
        self.criterion = nn.MSELoss()
        self.optimizer = torch.optim.Adam(self.parameters(), lr=lr)

    def forward(self, x):
        return self.decoder(self.encoder(x))

    def train_step(self, batch):
        x, _ = batch
        self.optimizer.zero_grad()
        loss = self.criterion(self(x), x)
        loss.backward()
        self.optimizer.step()
        return {"loss": loss.item()}
