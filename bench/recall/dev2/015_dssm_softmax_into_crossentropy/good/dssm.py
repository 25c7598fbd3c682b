import torch
import torch.nn.functional as F
from torch import nn


class CDSSM(nn.Module):
    def __init__(self, word_depth, k=300, l=128, j=4):
        super().__init__()
        self.query_conv = nn.Conv1d(word_depth, k, 3)
        self.query_sem = nn.Linear(k, l)
        self.doc_conv = nn.Conv1d(word_depth, k, 3)
        self.doc_sem = nn.Linear(k, l)
        self.learn_gamma = nn.Conv1d(j + 1, j + 1, 1)

    def encode(self, x, conv, sem):
        h = torch.tanh(conv(x.transpose(1, 2)))
        h = h.max(dim=2).values
        return torch.tanh(sem(h))

    def forward(self, q, pos, negs):
        q_s = self.encode(q, self.query_conv, self.query_sem)
        docs = [self.encode(d, self.doc_conv, self.doc_sem) for d in [pos] + negs]
        dots = torch.stack([F.cosine_similarity(q_s, d, dim=1) for d in docs], dim=1)
        with_gamma = self.learn_gamma(dots.unsqueeze(2)).squeeze(2)
        return with_gamma


def train(model, batches, lr=0.01):
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    for q, pos, negs in batches:
        y = torch.zeros(q.size(0), dtype=torch.long)
        y_pred = model(q, pos, negs)
        loss = criterion(y_pred, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
