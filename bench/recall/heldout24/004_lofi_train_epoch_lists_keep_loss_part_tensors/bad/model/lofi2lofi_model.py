import torch
from torch import nn

from model.constants import *


class Lofi2LofiModel(nn.Module):
    """Small VAE over a track: chords and melody are encoded, a latent is sampled and decoded back."""

    def __init__(self):
        super().__init__()
        self.chord_embedding = nn.Embedding(CHORD_PREDICTION_LENGTH, HIDDEN_SIZE)
        self.melody_embedding = nn.Embedding(MELODY_PREDICTION_LENGTH, HIDDEN_SIZE)
        self.encoder = nn.LSTM(HIDDEN_SIZE, HIDDEN_SIZE, batch_first=True)
        self.to_mu = nn.Linear(HIDDEN_SIZE + 4, HIDDEN_SIZE2)
        self.to_logvar = nn.Linear(HIDDEN_SIZE + 4, HIDDEN_SIZE2)
        self.decoder = Decoder()

    def forward(self, chords, notes, tempo, key, mode, valence, energy, num_chords, max_num_chords,
                sampling_rate_chords, sampling_rate_melodies):
        tokens = torch.cat([self.chord_embedding(chords), self.melody_embedding(notes)], dim=1)
        _, (h, _) = self.encoder(tokens)
        features = torch.cat([h[-1], tempo[:, None], valence[:, None], energy[:, None],
                              key[:, None].float() / NUMBER_OF_KEYS], dim=1)
        mu, logvar = self.to_mu(features), self.to_logvar(features)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        kl = -0.5 * torch.mean(1 + logvar - mu.pow(2) - logvar.exp())
        return (*self.decoder(z, max_num_chords), kl)


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(HIDDEN_SIZE2, HIDDEN_SIZE, batch_first=True)
        self.chords = nn.Linear(HIDDEN_SIZE, CHORD_PREDICTION_LENGTH)
        self.notes = nn.Linear(HIDDEN_SIZE, NOTES_PER_CHORD * MELODY_PREDICTION_LENGTH)
        self.tempo = nn.Linear(HIDDEN_SIZE2, 1)
        self.key = nn.Linear(HIDDEN_SIZE2, NUMBER_OF_KEYS)
        self.mode = nn.Linear(HIDDEN_SIZE2, NUMBER_OF_MODES)
        self.valence = nn.Linear(HIDDEN_SIZE2, 1)
        self.energy = nn.Linear(HIDDEN_SIZE2, 1)

    def forward(self, z, max_num_chords):
        steps = z[:, None, :].expand(-1, int(max_num_chords), -1)
        out, _ = self.rnn(steps)
        notes = self.notes(out).view(z.shape[0], -1, MELODY_PREDICTION_LENGTH)
        return (self.chords(out), notes, self.tempo(z), self.key(z), self.mode(z),
                self.valence(z), self.energy(z))
