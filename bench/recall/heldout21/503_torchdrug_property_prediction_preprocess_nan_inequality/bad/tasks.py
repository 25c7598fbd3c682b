import math
from collections import defaultdict

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F


def masked_mean(x, mask, dim=0):
    x = x.masked_fill(~mask, 0)
    return x.sum(dim) / mask.sum(dim).clamp(min=1)


class PropertyPrediction(nn.Module):
    """Graph/molecule property prediction. Multi-task datasets leave missing
    labels as NaN; regression targets are standardised with train-set statistics."""

    def __init__(self, model, task=(), criterion="mse", metric=("mae", "rmse")):
        super().__init__()
        self.model = model
        self.task = dict(task) if isinstance(task, dict) else {t: 1.0 for t in task}
        self.criterion = criterion
        self.metric = metric
        self.linear = nn.Linear(model.output_dim, len(self.task))

    def preprocess(self, train_set, valid_set, test_set):
        """Compute the mean and deviation of each task on the training set."""
        values = defaultdict(list)
        for data in train_set:
            if not data.get("labeled", True):
                continue
            for task in self.task:
                if data[task] != math.nan:  # expect: TCK702
                    values[task].append(data[task])
        mean, std, weight = [], [], []
        for task, w in self.task.items():
            value = np.array(values[task])
            mean.append(value.mean())
            std.append(value.std())
            weight.append(w)
        self.register_buffer("mean", torch.as_tensor(mean, dtype=torch.float))
        self.register_buffer("std", torch.as_tensor(std, dtype=torch.float))
        self.register_buffer("weight", torch.as_tensor(weight, dtype=torch.float))

    def predict(self, batch):
        return self.linear(self.model(batch["graph"]))

    def target(self, batch):
        return torch.stack([batch[t].float() for t in self.task], dim=-1)

    def forward(self, batch):
        pred = self.predict(batch)
        target = self.target(batch)
        labeled = ~torch.isnan(target)
        target = target.masked_fill(~labeled, 0)
        if self.criterion == "mse":
            loss = F.mse_loss(pred, (target - self.mean) / self.std, reduction="none")
        else:
            loss = F.binary_cross_entropy_with_logits(pred, target, reduction="none")
        loss = masked_mean(loss, labeled, dim=0)
        return (loss * self.weight).sum() / self.weight.sum()

    def evaluate(self, pred, target):
        labeled = ~torch.isnan(target)
        target = target.masked_fill(~labeled, 0)
        denorm = pred * self.std + self.mean
        metric = {}
        if "mae" in self.metric:
            metric["mae"] = masked_mean((denorm - target).abs(), labeled)
        if "rmse" in self.metric:
            metric["rmse"] = masked_mean((denorm - target) ** 2, labeled).sqrt()
        return metric
