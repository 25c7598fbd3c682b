import logging

import torch
import torch.nn.functional as F

from shared_rnn import Controller, SharedRNN

logger = logging.getLogger(__name__)


def _apply_penalties(extra_out, activation_regularization=2e-6):
    return activation_regularization * extra_out["hiddens"].pow(2).mean()


class Trainer:
    def __init__(self, train_data, batch_size=64, max_length=35, log_step=50, grad_clip=0.25):
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.train_data = train_data.to(device)
        self.batch_size = batch_size
        self.max_length = max_length
        self.log_step = log_step
        self.grad_clip = grad_clip
        self.shared = SharedRNN().to(device)
        self.controller = Controller().to(device)
        self.shared_optim = torch.optim.SGD(self.shared.parameters(), lr=20.0)

    def get_batch(self, source, idx, length):
        length = min(length, len(source) - 1 - idx)
        return source[idx:idx + length], source[idx + 1:idx + 1 + length]

    def get_loss(self, inputs, targets, hidden, dags):
        loss = 0
        for dag in dags:
            output, hidden, extra_out = self.shared(inputs, hidden, dag)
            loss = loss + F.cross_entropy(output.view(-1, output.size(-1)), targets.reshape(-1))
        return loss / len(dags), hidden, extra_out

    def _summarize_shared_train(self, total_loss, raw_total_loss):
        logger.info("train loss %.3f (raw %.3f)", total_loss / self.log_step, raw_total_loss / self.log_step)

    def train_shared(self, max_step=400):
        self.shared.train()
        self.controller.eval()
        hidden = self.shared.init_hidden(self.batch_size)

        step = 0
        raw_total_loss = 0
        total_loss = 0
        train_idx = 0
        while train_idx < self.train_data.size(0) - 2 and step <= max_step:
            dags = self.controller.sample(1)
            inputs, targets = self.get_batch(self.train_data, train_idx, self.max_length)

            loss, hidden, extra_out = self.get_loss(inputs, targets, hidden, dags)
            hidden = hidden.detach()
            raw_total_loss += loss  # expect: TCK101

            loss = loss + _apply_penalties(extra_out)

            self.shared_optim.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(self.shared.parameters(), self.grad_clip)
            self.shared_optim.step()

            total_loss += loss.item()

            if step % self.log_step == 0 and step > 0:
                self._summarize_shared_train(total_loss, float(raw_total_loss))
                raw_total_loss = 0
                total_loss = 0

            step += 1
            train_idx += self.max_length


if __name__ == "__main__":
    corpus = torch.randint(0, 10000, (20000, 64))
    trainer = Trainer(corpus)
    for epoch in range(10):
        trainer.train_shared()
