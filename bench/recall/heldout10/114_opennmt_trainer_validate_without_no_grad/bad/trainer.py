import torch
import torch.nn.functional as F


class Statistics:
    def __init__(self):
        self.loss = 0.0
        self.n_words = 0

    def update(self, loss, n_words):
        self.loss += loss
        self.n_words += n_words

    def ppl(self):
        return float(torch.exp(torch.tensor(self.loss / max(self.n_words, 1))))


class Trainer:
    def __init__(self, model, optimizer, pad_idx=0):
        self.model = model
        self.optimizer = optimizer
        self.pad_idx = pad_idx

    def _loss(self, logits, tgt):
        gold = tgt[:, 1:]
        return F.cross_entropy(logits.transpose(1, 2), gold, ignore_index=self.pad_idx, reduction="sum"), \
            int((gold != self.pad_idx).sum())

    def train(self, train_iter, valid_iter, epochs):
        for epoch in range(epochs):
            self.model.train()
            for src, tgt in train_iter:
                self.optimizer.zero_grad()
                loss, n_words = self._loss(self.model(src, tgt), tgt)
                (loss / n_words).backward()
                self.optimizer.step()
            stats = self.validate(valid_iter)
            print(f"epoch {epoch}: valid ppl {stats.ppl():.2f}")

    def validate(self, valid_iter):
        # Set model in validating mode.
        self.model.eval()
        stats = Statistics()
        for src, tgt in valid_iter:
            outputs = self.model(src, tgt)  # expect: TCK113
            loss, n_words = self._loss(outputs, tgt)
            stats.update(loss.item(), n_words)
        # Set model back to training mode.
        self.model.train()
        return stats
