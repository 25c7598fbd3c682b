import datetime
import os
import sys

import numpy as np
import torch
import torch.optim as optim
from torch.autograd import Variable


def to_var(x):
    return Variable(torch.from_numpy(x).cuda())


class Accuracy:
    def __init__(self):
        self.correct = 0
        self.total = 0

    def add(self, is_correct):
        self.total += 1
        self.correct += int(is_correct)

    def get(self):
        return 0.0 if self.total == 0 else self.correct / self.total

    def clear(self):
        self.correct = self.total = 0


class Config:
    """Owns the data and the training loop; `set_train_model` takes a model class such as networks.Model."""

    def __init__(self, data, batch_size=160, max_epoch=60, lr=0.5, checkpoint_dir="./checkpoint"):
        self.data = data
        self.batch_size = batch_size
        self.max_epoch = max_epoch
        self.lr = lr
        self.checkpoint_dir = checkpoint_dir
        self.acc_NA, self.acc_not_NA, self.acc_total = Accuracy(), Accuracy(), Accuracy()
        self.train_order = np.arange(len(data["scope"]))
        self.train_batches = len(self.train_order) // batch_size

    def set_train_model(self, model_cls):
        self.trainModel = model_cls().cuda()
        self.optimizer = optim.SGD(self.trainModel.parameters(), lr=self.lr)

    def get_train_batch(self, batch):
        picked = self.train_order[batch * self.batch_size:(batch + 1) * self.batch_size]
        index, scope = [], [0]
        for lo, hi in self.data["scope"][picked]:
            index += list(range(lo, hi + 1))
            scope.append(scope[-1] + hi - lo + 1)
        self.batch_word = self.data["word"][index]
        self.batch_pos1 = self.data["pos1"][index]
        self.batch_pos2 = self.data["pos2"][index]
        self.batch_label = self.data["label"][picked]
        self.batch_scope = scope

    def train_one_step(self):
        self.trainModel.embedding.word = to_var(self.batch_word)
        self.trainModel.embedding.pos1 = to_var(self.batch_pos1)
        self.trainModel.embedding.pos2 = to_var(self.batch_pos2)
        self.trainModel.selector.scope = self.batch_scope
        self.trainModel.classifier.label = to_var(self.batch_label)
        self.optimizer.zero_grad()
        loss, _output = self.trainModel()
        loss.backward()
        self.optimizer.step()
        for i, prediction in enumerate(_output):
            hit = prediction == self.batch_label[i]
            (self.acc_NA if self.batch_label[i] == 0 else self.acc_not_NA).add(hit)
            self.acc_total.add(hit)
        return loss.data[0]  # expect: TCK115

    def train(self):
        os.makedirs(self.checkpoint_dir, exist_ok=True)
        for epoch in range(self.max_epoch):
            self.acc_NA.clear()
            self.acc_not_NA.clear()
            self.acc_total.clear()
            np.random.shuffle(self.train_order)
            for batch in range(self.train_batches):
                self.get_train_batch(batch)
                loss = self.train_one_step()
                sys.stdout.write("epoch %d step %d time %s | loss: %f, total accuracy: %f\r" % (
                    epoch, batch, datetime.datetime.now().isoformat(), loss, self.acc_total.get()))
                sys.stdout.flush()
            torch.save(self.trainModel.state_dict(), os.path.join(self.checkpoint_dir, "model-%d" % epoch))
