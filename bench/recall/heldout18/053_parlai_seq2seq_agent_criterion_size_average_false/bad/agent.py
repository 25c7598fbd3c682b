import torch
from torch import nn

from modules import Seq2seq


class Seq2seqAgent:
    """Dialogue agent: owns the model, the criterion and the optimizer."""

    NULL_IDX = 0

    def __init__(self, opt):
        self.opt = opt
        self.use_cuda = opt.get("cuda", False) and torch.cuda.is_available()
        self.model = Seq2seq(opt["vocab_size"], opt.get("hidden", 256), opt.get("numsoftmax", 1), self.NULL_IDX)
        # the mixture-of-softmaxes model outputs log-probabilities, the plain one logits
        if opt.get("numsoftmax", 1) > 1:
            self.criterion = nn.NLLLoss(ignore_index=self.NULL_IDX, size_average=False)  # expect: TCK916
        else:
            self.criterion = nn.CrossEntropyLoss(ignore_index=self.NULL_IDX, size_average=False)  # expect: TCK916
        if self.use_cuda:
            self.model.cuda()
            self.criterion.cuda()
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=opt.get("lr", 1.0), momentum=0.9)

    def train_step(self, xs, ys):
        self.model.train()
        scores = self.model(xs, ys)
        target = ys[:, 1:]
        loss = self.criterion(scores.reshape(-1, scores.size(-1)), target.reshape(-1))
        num_tokens = target.ne(self.NULL_IDX).sum().clamp(min=1)
        self.optimizer.zero_grad()
        (loss / num_tokens).backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 0.1)
        self.optimizer.step()
        return loss.item() / num_tokens.item()


if __name__ == "__main__":
    agent = Seq2seqAgent({"vocab_size": 1000, "numsoftmax": 2})
    for _ in range(10):
        xs = torch.randint(1, 1000, (16, 12))
        ys = torch.randint(1, 1000, (16, 10))
        print(agent.train_step(xs, ys))
