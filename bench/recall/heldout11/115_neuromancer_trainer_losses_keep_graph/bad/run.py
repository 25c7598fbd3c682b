import torch
import torch.nn as nn

from problem import Problem
from trainer import Trainer


def make_batches(name, n_batches=20):
    return [{"x": torch.randn(64, 4), "y": torch.randn(64, 1), "name": name} for _ in range(n_batches)]


if __name__ == "__main__":
    net = nn.Sequential(nn.Linear(4, 64), nn.Tanh(), nn.Linear(64, 1))
    problem = Problem(net)
    trainer = Trainer(problem, make_batches("train"), make_batches("dev", 4),
                      optimizer=torch.optim.AdamW(problem.parameters(), lr=1e-3), epochs=200,
                      lr_scheduler=True)
    best = trainer.train()
    print(sorted(best.keys()))
