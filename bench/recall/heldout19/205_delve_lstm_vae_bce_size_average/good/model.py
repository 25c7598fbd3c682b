import torch
import torch.nn as nn


class LSTMVAE(nn.Module):
    def __init__(self, in_dim=784, hidden_dim=128, n_layers=1, z_dim=32):
        super().__init__()
        self.n_layers = n_layers
        self.hidden_dim = hidden_dim
        self.encoder_lstm = nn.LSTM(in_dim, hidden_dim, n_layers, batch_first=True)
        self.encoder_output = nn.Linear(hidden_dim, z_dim * 2)
        self.decoder_lstm = nn.LSTM(z_dim, hidden_dim, n_layers, batch_first=True)
        self.decoder_output = nn.Linear(hidden_dim, in_dim)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        return mu + std * torch.randn_like(std)

    def forward(self, x):
        enc, _ = self.encoder_lstm(x)
        mu, logvar = torch.chunk(self.encoder_output(torch.relu(enc)), 2, dim=2)
        z = self.reparameterize(mu, logvar)
        dec, _ = self.decoder_lstm(z)
        return torch.sigmoid(self.decoder_output(torch.relu(dec))), mu, logvar
