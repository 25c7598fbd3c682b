import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class Classifier(nn.Module):
    """Base class for the end models: shared training loop and scoring."""

    def __init__(self, k, config=None):
        super().__init__()
        self.k = k
        self.config = {"n_epochs": 5, "lr": 1e-2, "batch_size": 32, "verbose": True}
        self.config.update(config or {})

    def train(self, *args, **kwargs):
        """Trains a classifier; implemented by the subclasses."""
        raise NotImplementedError

    def _train(self, train_loader, loss_fn, dev_data=None):
        optimizer = torch.optim.SGD(self.parameters(), lr=self.config["lr"])
        for epoch in range(self.config["n_epochs"]):
            epoch_loss = 0.0
            for X, Y in train_loader:
                optimizer.zero_grad()
                loss = loss_fn(X, Y)
                loss.backward()
                optimizer.step()
                epoch_loss += loss.item()
            if dev_data is not None and self.config["verbose"]:
                print(f"epoch {epoch}: loss={epoch_loss:.3f} dev_acc={self.score(*dev_data):.3f}")

    @torch.no_grad()
    def predict_proba(self, X):
        self.eval()
        probs = torch.softmax(self.forward(X), dim=-1)
        return probs

    def score(self, X, Y):
        return (self.predict_proba(X).argmax(dim=-1) == Y).float().mean().item()

    @staticmethod
    def make_loader(X, Y, batch_size):
        return DataLoader(TensorDataset(X, Y), batch_size=batch_size, shuffle=True)
