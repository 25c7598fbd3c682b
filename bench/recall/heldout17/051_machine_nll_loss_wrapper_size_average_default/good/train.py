import torch
import torch.nn as nn
import torch.nn.functional as F

from loss import NLLLoss, Perplexity


class Seq2Seq(nn.Module):
    def __init__(self, vocab, hidden):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.rnn = nn.GRU(hidden, hidden, batch_first=True)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, tokens):
        states, _ = self.rnn(self.embed(tokens))
        return F.log_softmax(self.out(states), dim=-1)


def train(steps=50, vocab=30, hidden=64):
    model = Seq2Seq(vocab, hidden)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    losses = [NLLLoss(), Perplexity()]
    for _ in range(steps):
        batch = torch.randint(0, vocab, (16, 12))
        log_probs = model(batch[:, :-1])
        step_outputs = log_probs.unbind(dim=1)
        for loss in losses:
            loss.reset()
            loss.eval_batch(step_outputs, batch)
        optimizer.zero_grad()
        losses[0].backward()
        optimizer.step()
        print({loss.name: loss.get_loss() for loss in losses})


if __name__ == "__main__":
    train()
