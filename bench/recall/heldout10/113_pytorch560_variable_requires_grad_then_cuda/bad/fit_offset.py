import torch
from torch.autograd import Variable

from scorer import FrozenScorer


def main(steps=200, lr=0.1, dim=16):
    scorer = FrozenScorer(dim).cuda()
    target = Variable(torch.randn(64, dim, device="cuda"))
    offset = Variable(torch.randn(1, dim), requires_grad=True).cuda()  # expect: TCK108
    for step in range(steps):
        loss = ((scorer(target + offset) - scorer(target)) ** 2).mean() + 1e-3 * (offset ** 2).sum()
        loss.backward()
        with torch.no_grad():
            offset -= lr * offset.grad
            offset.grad.zero_()
        if step % 50 == 0:
            print(step, loss.item())


if __name__ == "__main__":
    main()
