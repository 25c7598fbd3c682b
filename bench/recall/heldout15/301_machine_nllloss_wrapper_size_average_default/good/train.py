import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from loss import NLLLoss, Perplexity


class Seq2Seq(nn.Module):
    def __init__(self, vocab_size, hidden=256):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, hidden)
        self.encoder = nn.GRU(hidden, hidden, batch_first=True)
        self.decoder = nn.GRU(hidden, hidden, batch_first=True)
        self.out = nn.Linear(hidden, vocab_size)

    def forward(self, src, tgt_in):
        _, h = self.encoder(self.embed(src))
        dec, _ = self.decoder(self.embed(tgt_in), h)
        return F.log_softmax(self.out(dec), dim=-1)


def train_epoch(model, loader, optimizer, losses, pad_idx):
    model.train()
    for src, tgt in loader:
        for loss in losses:
            loss.reset()
        log_probs = model(src, tgt[:, :-1])
        target = tgt[:, 1:]
        for step in range(target.size(1)):
            for loss in losses:
                loss.eval_batch(log_probs[:, step], target[:, step])
        optimizer.zero_grad()
        losses[0].backward()
        optimizer.step()
    return [loss.get_loss() for loss in losses]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True)
    parser.add_argument("--vocab", type=int, default=1000)
    parser.add_argument("--epochs", type=int, default=10)
    args = parser.parse_args()

    src, tgt = torch.load(args.data, weights_only=True)
    loader = DataLoader(TensorDataset(src, tgt), batch_size=32, shuffle=True)
    pad_idx = 0
    model = Seq2Seq(args.vocab)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    losses = [NLLLoss(ignore_index=pad_idx), Perplexity(ignore_index=pad_idx)]
    for epoch in range(args.epochs):
        nll, ppl = train_epoch(model, loader, optimizer, losses, pad_idx)
        print(f"epoch {epoch}: nll {nll:.3f} ppl-sum {ppl:.3f}")


if __name__ == "__main__":
    main()
