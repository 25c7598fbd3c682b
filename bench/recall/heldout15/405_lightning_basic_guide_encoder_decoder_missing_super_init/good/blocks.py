from torch import nn


class Encoder(nn.Module):
    def __init__(self, in_dim=28 * 28, hidden=64, latent=3):
        super().__init__()
        self.l1 = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(), nn.Linear(hidden, latent))

    def forward(self, x):
        return self.l1(x)


class Decoder(nn.Module):
    def __init__(self, latent=3, hidden=64, out_dim=28 * 28):
        super().__init__()
        self.l1 = nn.Sequential(nn.Linear(latent, hidden), nn.ReLU(), nn.Linear(hidden, out_dim))

    def forward(self, x):
        return self.l1(x)
