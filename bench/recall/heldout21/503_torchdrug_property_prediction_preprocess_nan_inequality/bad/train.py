import math
import random

import torch
from torch import nn

from engine import Engine
from tasks import PropertyPrediction


class GraphEncoder(nn.Module):
    def __init__(self, input_dim, output_dim):
        super().__init__()
        self.output_dim = output_dim
        self.mlp = nn.Sequential(nn.Linear(input_dim, 64), nn.ReLU(), nn.Linear(64, output_dim))

    def forward(self, graph):
        return self.mlp(graph)


def qm_like_dataset(n, tasks, missing=0.3):
    samples = []
    for _ in range(n):
        sample = {"graph": torch.randn(16)}
        for task in tasks:
            # multi-task molecule sets leave unmeasured properties as NaN
            sample[task] = math.nan if random.random() < missing else random.gauss(0.0, 2.0)
        samples.append(sample)
    return samples


def main():
    tasks = ["homo", "lumo", "gap"]
    dataset = qm_like_dataset(1000, tasks)
    train_set, valid_set, test_set = dataset[:800], dataset[800:900], dataset[900:]
    task = PropertyPrediction(GraphEncoder(16, 32), task=tasks, criterion="mse")
    optimizer = torch.optim.Adam(task.parameters(), lr=1e-3)
    solver = Engine(task, train_set, valid_set, test_set, optimizer, batch_size=64)
    solver.train(num_epoch=5)
    print(solver.evaluate("valid"))


if __name__ == "__main__":
    main()
