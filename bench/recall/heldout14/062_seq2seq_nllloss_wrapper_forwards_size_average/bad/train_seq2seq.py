import torch
import torch.nn as nn
import torch.nn.functional as F

from loss import Perplexity

PAD, VOCAB = 0, 500


class TinyDecoder(nn.Module):
    def __init__(self, vocab=VOCAB, hidden=64):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.rnn = nn.GRU(hidden, hidden, batch_first=True)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, tokens):
        h, _ = self.rnn(self.embed(tokens))
        return [F.log_softmax(self.out(h[:, t]), dim=-1) for t in range(h.size(1))]


def main(steps=50):
    weight = torch.ones(VOCAB)
    loss = Perplexity(weight, PAD)
    model = TinyDecoder()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for _ in range(steps):
        target = torch.randint(1, VOCAB, (16, 12))
        loss.reset()
        loss.eval_batch(model(target[:, :-1]), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print("perplexity", loss.get_loss())


if __name__ == "__main__":
    main()
