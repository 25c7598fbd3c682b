import torch


class BaseTrainer:
    """Runs the training loop described by a dict of arguments and keeps the best weights."""

    def __init__(self, args=None, model=None):
        self.args = dict(args or {})
        self.model = model
        self.best = None

    def train(self):
        epochs = int(self.args.get("epochs", 1))
        optimizer = torch.optim.SGD(self.model.parameters(), lr=float(self.args.get("lr0", 0.01)))
        self.model.train()
        for _ in range(epochs):
            x = torch.randn(2, 3, 64, 64)
            loss = self.model(x).float().pow(2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        self.best = {"model": self.model}
