import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class NeuralNet:
    """A small sklearn-style wrapper around a PyTorch module."""

    def __init__(self, module, criterion, lr=0.01, max_epochs=10, batch_size=64, device="cpu"):
        self.module_ = module.to(device)
        self.criterion_ = criterion
        self.optimizer_ = torch.optim.SGD(self.module_.parameters(), lr=lr)
        self.max_epochs = max_epochs
        self.batch_size = batch_size
        self.device = device
        self.history = []

    def infer(self, x):
        return self.module_(x.to(self.device))

    def get_loss(self, y_pred, y_true):
        return self.criterion_(y_pred, y_true.to(self.device))

    def train_step(self, xi, yi):
        self.module_.train()
        self.optimizer_.zero_grad()
        y_pred = self.infer(xi)
        loss = self.get_loss(y_pred, yi)
        loss.backward()
        self.optimizer_.step()
        return {"loss": loss, "y_pred": y_pred}

    def validation_step(self, xi, yi):
        self.module_.eval()
        y_pred = self.module_(xi.to(self.device))  # expect: TCK113
        loss = self.get_loss(y_pred, yi)
        return {"loss": loss, "y_pred": y_pred}

    def run_single_epoch(self, dataset, training):
        loader = DataLoader(dataset, batch_size=self.batch_size, shuffle=training)
        losses = []
        for xi, yi in loader:
            if training:
                out = self.train_step(xi, yi)
            else:
                out = self.validation_step(xi, yi)
            losses.append(out["loss"].item())
        return float(np.mean(losses))

    def fit(self, X, y, X_valid, y_valid):
        train_ds = TensorDataset(torch.as_tensor(X), torch.as_tensor(y))
        valid_ds = TensorDataset(torch.as_tensor(X_valid), torch.as_tensor(y_valid))
        for epoch in range(self.max_epochs):
            train_loss = self.run_single_epoch(train_ds, training=True)
            valid_loss = self.run_single_epoch(valid_ds, training=False)
            self.history.append({"epoch": epoch, "train_loss": train_loss, "valid_loss": valid_loss})
        return self
