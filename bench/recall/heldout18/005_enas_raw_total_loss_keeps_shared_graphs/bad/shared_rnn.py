import torch
import torch.nn as nn


class SharedRNN(nn.Module):
    """Weight-shared recurrent cell; each sampled DAG picks its own activations."""

    def __init__(self, vocab=10000, hidden=256):
        super().__init__()
        self.hidden_size = hidden
        self.encoder = nn.Embedding(vocab, hidden)
        self.w_x = nn.Linear(hidden, hidden)
        self.w_h = nn.Linear(hidden, hidden)
        self.decoder = nn.Linear(hidden, vocab)

    def init_hidden(self, batch_size):
        return torch.zeros(batch_size, self.hidden_size, device=self.decoder.weight.device)

    def forward(self, inputs, hidden, dag):
        act = torch.tanh if dag % 2 == 0 else torch.relu
        hiddens = []
        for token in inputs:
            hidden = act(self.w_x(self.encoder(token)) + self.w_h(hidden))
            hiddens.append(hidden)
        hiddens = torch.stack(hiddens)
        return self.decoder(hiddens), hidden, {"hiddens": hiddens}


class Controller(nn.Module):
    def __init__(self, num_dags=8):
        super().__init__()
        self.logits = nn.Parameter(torch.zeros(num_dags))

    def sample(self, n):
        return torch.multinomial(torch.softmax(self.logits, 0), n, replacement=True).tolist()
