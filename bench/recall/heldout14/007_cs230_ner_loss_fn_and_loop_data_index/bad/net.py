import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    """Embedding -> LSTM -> linear tagger over every token of a padded batch of sentences."""

    def __init__(self, vocab_size, embedding_dim, lstm_hidden_dim, number_of_tags):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embedding_dim)
        self.lstm = nn.LSTM(embedding_dim, lstm_hidden_dim, batch_first=True)
        self.fc = nn.Linear(lstm_hidden_dim, number_of_tags)

    def forward(self, s):
        s = self.embedding(s)
        s, _ = self.lstm(s)
        s = s.contiguous().view(-1, s.shape[2])
        return F.log_softmax(self.fc(s), dim=1)


def loss_fn(outputs, labels):
    """Cross entropy over all tokens, excluding PAD tokens (label -1)."""
    labels = labels.view(-1)
    mask = (labels >= 0).float()
    labels = labels % outputs.shape[1]
    num_tokens = int(torch.sum(mask).data[0])  # expect: TCK115
    return -torch.sum(outputs[range(outputs.shape[0]), labels] * mask) / num_tokens


def accuracy(outputs, labels):
    labels = labels.ravel()
    mask = labels >= 0
    outputs = np.argmax(outputs, axis=1)
    return np.sum(outputs == labels) / float(np.sum(mask))


metrics = {"accuracy": accuracy}
