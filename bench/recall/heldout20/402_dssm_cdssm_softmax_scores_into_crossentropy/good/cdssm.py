# Convolutional Deep Semantic Similarity Model (Shen et al., CIKM 2014), trained on random data.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

LETTER_GRAM_SIZE = 3
WINDOW_SIZE = 3
TOTAL_LETTER_GRAMS = 1000
WORD_DEPTH = WINDOW_SIZE * TOTAL_LETTER_GRAMS
K = 300  # max-pooling layer width
L = 128  # semantic space width
J = 4  # unclicked (negative) documents per query
FILTER_LENGTH = 1


def kmax_pooling(x, dim, k):
    index = x.topk(k, dim=dim)[1].sort(dim=dim)[0]
    return x.gather(dim, index)


class CDSSM(nn.Module):
    def __init__(self):
        super().__init__()
        self.query_conv = nn.Conv1d(WORD_DEPTH, K, FILTER_LENGTH)
        self.query_sem = nn.Linear(K, L)
        self.doc_conv = nn.Conv1d(WORD_DEPTH, K, FILTER_LENGTH)
        self.doc_sem = nn.Linear(K, L)
        # gamma, the softmax smoothing factor, learned as a 1x1 convolution
        self.learn_gamma = nn.Conv1d(1, 1, 1)

    def _encode(self, x, conv, sem):
        x = torch.tanh(conv(x.transpose(1, 2)))
        x = kmax_pooling(x, 2, 1).transpose(1, 2)
        return torch.tanh(sem(x)).reshape(L)

    def forward(self, q, pos, negs):
        q_s = self._encode(q, self.query_conv, self.query_sem)
        pos_s = self._encode(pos, self.doc_conv, self.doc_sem)
        neg_ss = [self._encode(neg, self.doc_conv, self.doc_sem) for neg in negs]
        # index 0 holds the clicked document, the target class
        dots = torch.stack([q_s.dot(pos_s)] + [q_s.dot(neg_s) for neg_s in neg_ss])
        with_gamma = self.learn_gamma(dots.reshape(J + 1, 1, 1))
        # logits for CrossEntropyLoss; F.softmax(with_gamma, dim=0) gives P(D+|Q)
        return with_gamma


model = CDSSM()

sample_size = 10
queries, positives = [], []
for _ in range(sample_size):
    queries.append(torch.from_numpy(np.random.rand(1, np.random.randint(1, 10), WORD_DEPTH)).float())
    positives.append(torch.from_numpy(np.random.rand(1, np.random.randint(50, 500), WORD_DEPTH)).float())

negatives = [[] for _ in range(J)]
for i in range(sample_size):
    others = [k for k in range(sample_size) if k != i]
    for j, n in enumerate(np.random.choice(others, J, replace=False)):
        negatives[j].append(positives[n])

criterion = torch.nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=1e-4, momentum=0.9)
y = torch.zeros(1, dtype=torch.long)

for i in range(sample_size):
    y_pred = model(queries[i], positives[i], [negatives[j][i] for j in range(J)])
    loss = criterion(y_pred.resize(1, J + 1), y)
    print(i, loss.item())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
