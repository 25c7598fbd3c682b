import argparse

import torch
import torch.nn as nn

from loss import NMTLossCompute


class TinySeq2Seq(nn.Module):
    def __init__(self, vocab_size, dim=256):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim, padding_idx=1)
        self.encoder = nn.LSTM(dim, dim, batch_first=True)
        self.decoder = nn.LSTM(dim, dim, batch_first=True)

    def forward(self, src, tgt_in):
        _, state = self.encoder(self.embed(src))
        out, _ = self.decoder(self.embed(tgt_in), state)
        return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--label_smoothing", type=float, default=0.0)
    parser.add_argument("--steps", type=int, default=200)
    opt = parser.parse_args()

    vocab_size, pad = 8000, 1
    model = TinySeq2Seq(vocab_size)
    generator = nn.Sequential(nn.Linear(256, vocab_size), nn.LogSoftmax(dim=-1))
    loss_compute = NMTLossCompute(generator, vocab_size, pad, label_smoothing=opt.label_smoothing)
    params = list(model.parameters()) + list(generator.parameters())
    optimizer = torch.optim.Adam(params, lr=2e-4)

    for step in range(opt.steps):
        src = torch.randint(2, vocab_size, (32, 20))
        tgt = torch.randint(2, vocab_size, (32, 21))
        optimizer.zero_grad()
        out = model(src, tgt[:, :-1])
        n_tokens = tgt[:, 1:].ne(pad).sum().item()
        loss, n_words, n_correct = loss_compute(out, tgt[:, 1:].contiguous(), n_tokens)
        optimizer.step()
        if step % 50 == 0:
            print(step, loss / n_words, n_correct / n_words)


if __name__ == "__main__":
    main()
