import torch
import torch.nn as nn

from cross_entropy import CrossEntropyCriterion


class TinyLM(nn.Module):
    def __init__(self, vocab=1000, dim=256):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim, padding_idx=1)
        self.rnn = nn.LSTM(dim, dim, batch_first=True)
        self.out = nn.Linear(dim, vocab)

    def forward(self, src_tokens):
        h, _ = self.rnn(self.embed(src_tokens))
        return self.out(h)


class Trainer(object):
    def __init__(self, model, criterion, lr=0.25, clip_norm=25.0):
        self.model = model.cuda()
        self.criterion = criterion.cuda()
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=lr, momentum=0.99, nesterov=True)
        self.clip_norm = clip_norm

    def train_step(self, sample):
        self.model.train()
        self.optimizer.zero_grad()
        loss, sample_size, logging_output = self.criterion(self.model, sample)
        (loss / sample_size).backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.clip_norm)
        self.optimizer.step()
        return self.criterion.aggregate_logging_outputs([logging_output])


def main(steps=1000):
    trainer = Trainer(TinyLM(), CrossEntropyCriterion(padding_idx=1))
    for step in range(steps):
        tokens = torch.randint(2, 1000, (32, 51)).cuda()
        sample = {"net_input": {"src_tokens": tokens[:, :-1]}, "target": tokens[:, 1:], "ntokens": 32 * 50}
        stats = trainer.train_step(sample)
        if step % 100 == 0:
            print(step, stats)


if __name__ == "__main__":
    main()
