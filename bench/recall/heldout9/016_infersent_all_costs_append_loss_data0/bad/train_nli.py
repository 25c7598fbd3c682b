import time

import numpy as np
import torch
import torch.nn as nn
from torch.autograd import Variable

from data import get_batch, get_nli
from models import NLINet

train, valid, test = get_nli("dataset/SNLI")
nli_net = NLINet({"n_classes": 3, "enc_lstm_dim": 2048}).cuda()
weight = torch.FloatTensor(3).fill_(1)
loss_fn = nn.CrossEntropyLoss(weight=weight)
loss_fn.size_average = False
loss_fn.cuda()
optimizer = torch.optim.SGD(nli_net.parameters(), lr=0.1)
batch_size = 64


def trainepoch(epoch, word_vec):
    nli_net.train()
    all_costs = []
    correct = 0.0
    last_time = time.time()
    s1, s2, target = train["s1"], train["s2"], train["label"]
    for stidx in range(0, len(s1), batch_size):
        s1_batch, s1_len = get_batch(s1[stidx:stidx + batch_size], word_vec)
        s2_batch, s2_len = get_batch(s2[stidx:stidx + batch_size], word_vec)
        s1_batch, s2_batch = Variable(s1_batch.cuda()), Variable(s2_batch.cuda())
        tgt_batch = Variable(torch.LongTensor(target[stidx:stidx + batch_size])).cuda()
        output = nli_net((s1_batch, s1_len), (s2_batch, s2_len))
        pred = output.data.max(1)[1]
        correct += pred.long().eq(tgt_batch.data.long()).cpu().sum().item()

        loss = loss_fn(output, tgt_batch)
        all_costs.append(loss.data[0])  # expect: TCK115

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

        if len(all_costs) == 100:
            print(f"{stidx} ; loss {round(np.mean(all_costs), 2)} ; {time.time() - last_time:.1f}s")
            last_time = time.time()
            all_costs = []
    return round(100 * correct / len(s1), 2)
