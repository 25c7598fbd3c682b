import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class Wide(nn.Module):
    def __init__(self, wide_dim, pred_dim):
        super().__init__()
        self.linear = nn.Linear(wide_dim, pred_dim)

    def forward(self, x):
        return self.linear(x)


class DeepDense(nn.Module):
    def __init__(self, deep_dim, hidden, pred_dim, dropout=0.1):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(deep_dim, hidden), nn.ReLU(), nn.Dropout(dropout), nn.Linear(hidden, pred_dim)
        )

    def forward(self, x):
        return self.net(x)


class WideDeep(nn.Module):
    def __init__(self, wide_dim, deep_dim, pred_dim=1, hidden=64):
        super().__init__()
        self.wide = Wide(wide_dim, pred_dim)
        self.deepdense = DeepDense(deep_dim, hidden, pred_dim)

    def forward(self, X_wide, X_deep):
        return self.wide(X_wide) + self.deepdense(X_deep)

    def compile(self, method, lr=1e-3, class_weight=None):
        self.method = method
        self.class_weight = class_weight
        self.optimizer = torch.optim.Adam(self.parameters(), lr=lr)

    def _activation_fn(self, inp):
        if self.method == "regression":
            return inp
        if self.method == "logistic":
            return torch.sigmoid(inp)
        # F.cross_entropy applies log-softmax itself in the multiclass case
        return inp

    def _loss_fn(self, y_pred, y_true):
        if self.method == "regression":
            return F.mse_loss(y_pred, y_true.view(-1, 1))
        if self.method == "logistic":
            return F.binary_cross_entropy(y_pred, y_true.view(-1, 1), weight=self.class_weight)
        if self.method == "multiclass":
            return F.cross_entropy(y_pred, y_true, weight=self.class_weight)

    def _training_step(self, X_wide, X_deep, target):
        y = target.float() if self.method != "multiclass" else target
        self.optimizer.zero_grad()
        y_pred = self._activation_fn(self.forward(X_wide, X_deep))
        loss = self._loss_fn(y_pred, y)
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def _validation_step(self, X_wide, X_deep, target):
        with torch.no_grad():
            y = target.float() if self.method != "multiclass" else target
            y_pred = self._activation_fn(self.forward(X_wide, X_deep))
            return self._loss_fn(y_pred, y).item()

    def fit(self, X_wide, X_deep, target, X_val=None, n_epochs=5, batch_size=32):
        train_loader = DataLoader(
            TensorDataset(torch.as_tensor(X_wide), torch.as_tensor(X_deep), torch.as_tensor(target)),
            batch_size=batch_size, shuffle=True, num_workers=2,
        )
        for epoch in range(n_epochs):
            self.train()
            train_loss = np.mean([self._training_step(w, d, t) for w, d, t in train_loader])
            if X_val is not None:
                self.eval()
                val_loss = self._validation_step(*[torch.as_tensor(a) for a in X_val])
                print(f"epoch {epoch + 1}: train {train_loss:.4f} valid {val_loss:.4f}")

    def predict_proba(self, X_wide, X_deep):
        self.eval()
        with torch.no_grad():
            preds = self._activation_fn(self.forward(torch.as_tensor(X_wide), torch.as_tensor(X_deep)))
            if self.method == "multiclass":
                preds = F.softmax(preds, dim=1)
        return preds.numpy()
