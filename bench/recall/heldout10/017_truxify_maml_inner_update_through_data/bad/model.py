import copy

import torch
import torch.nn as nn


class DemandNet(nn.Module):
    def __init__(self, in_features=16, hidden=64):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_features, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, x):
        return self.net(x)


class MAML:
    """Model-agnostic meta-learning over per-route demand forecasting tasks."""

    def __init__(self, model, inner_lr=0.01, meta_lr=1e-3, inner_steps=1):
        self.model = model
        self.inner_lr = inner_lr
        self.inner_steps = inner_steps
        self.criterion = nn.MSELoss()
        self.meta_optimizer = torch.optim.Adam(self.model.parameters(), lr=meta_lr)

    def inner_update(self, model, support_x, support_y):
        adapted_model = copy.deepcopy(model)
        for _ in range(self.inner_steps):
            loss = self.criterion(adapted_model(support_x), support_y)
            grads = torch.autograd.grad(loss, adapted_model.parameters(), create_graph=True)
            for param, grad in zip(adapted_model.parameters(), grads):
                param.data -= self.inner_lr * grad  # expect: TCK107
        return adapted_model

    def outer_update(self, meta_loss):
        self.meta_optimizer.zero_grad()
        meta_loss.backward()
        self.meta_optimizer.step()

    def meta_train_step(self, tasks):
        meta_loss = 0.0
        for support_x, support_y, query_x, query_y in tasks:
            adapted_model = self.inner_update(self.model, support_x, support_y)
            pred = adapted_model(query_x)
            meta_loss = meta_loss + self.criterion(pred, query_y)
        meta_loss = meta_loss / len(tasks)
        self.outer_update(meta_loss)
        return meta_loss.item()

    def adapt(self, support_x, support_y, steps=5):
        adapted_model = copy.deepcopy(self.model)
        for _ in range(steps):
            loss = self.criterion(adapted_model(support_x), support_y)
            grads = torch.autograd.grad(loss, adapted_model.parameters())
            for param, grad in zip(adapted_model.parameters(), grads):
                param.data -= self.inner_lr * grad  # expect: TCK107
        return adapted_model


def make_tasks(n_tasks=8, n=20, in_features=16):
    tasks = []
    for _ in range(n_tasks):
        w = torch.randn(in_features, 1)
        xs, xq = torch.randn(n, in_features), torch.randn(n, in_features)
        tasks.append((xs, xs @ w, xq, xq @ w))
    return tasks


if __name__ == "__main__":
    maml = MAML(DemandNet())
    for it in range(1000):
        print(it, maml.meta_train_step(make_tasks()))
