import torch
import torch.nn.functional as F
from torch import nn


class Seq2seq(nn.Module):
    def __init__(self, vocab_size, hidden=256, num_softmax=1, null_idx=0):
        super().__init__()
        self.num_softmax = num_softmax
        self.embed = nn.Embedding(vocab_size, hidden, padding_idx=null_idx)
        self.encoder = nn.GRU(hidden, hidden, batch_first=True)
        self.decoder = nn.GRU(hidden, hidden, batch_first=True)
        if num_softmax > 1:
            self.prior = nn.Linear(hidden, num_softmax)
            self.latent = nn.Linear(hidden, num_softmax * hidden)
        self.out = nn.Linear(hidden, vocab_size)

    def forward(self, xs, ys):
        _, h = self.encoder(self.embed(xs))
        dec, _ = self.decoder(self.embed(ys[:, :-1]), h)
        if self.num_softmax == 1:
            return self.out(dec)
        # mixture of softmaxes: returns log-probabilities
        b, t, d = dec.shape
        prior = F.softmax(self.prior(dec), dim=-1)
        latent = torch.tanh(self.latent(dec)).view(b, t, self.num_softmax, d)
        probs = F.softmax(self.out(latent), dim=-1)
        return torch.log((prior.unsqueeze(-1) * probs).sum(2) + 1e-8)
