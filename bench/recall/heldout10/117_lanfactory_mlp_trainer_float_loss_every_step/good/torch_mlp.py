from time import time

import torch
from torch.utils.data import DataLoader, TensorDataset

from network import MLP


class ModelTrainerTorchMLP:
    def __init__(self, model, train_dl, valid_dl, n_epochs=10, lr=1e-3, pin_memory=True):
        self.dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.model = model.to(self.dev)
        self.train_dl = train_dl
        self.valid_dl = valid_dl
        self.n_epochs = n_epochs
        self.pin_memory = pin_memory
        self.loss_fun = torch.nn.HuberLoss()
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=lr)

    def train_and_evaluate(self):
        history = []
        for epoch in range(self.n_epochs):
            self.model.train()
            epoch_s_t = time()
            epoch_loss_sum = torch.zeros((), device=self.dev)
            cnt = 0
            for xb, yb in self.train_dl:
                if self.pin_memory and self.dev.type == "cuda":
                    xb, yb = xb.cuda(non_blocking=True), yb.cuda(non_blocking=True)
                else:
                    xb, yb = xb.to(self.dev), yb.to(self.dev)
                loss = self.loss_fun(self.model(xb), yb)
                loss.backward()
                self.optimizer.step()
                self.optimizer.zero_grad()
                epoch_loss_sum += loss.detach()
                cnt += 1
            train_loss = epoch_loss_sum.item() / max(cnt, 1)

            self.model.eval()
            with torch.no_grad():
                val_loss = sum(self.loss_fun(self.model(xb.to(self.dev)), yb.to(self.dev))
                               for xb, yb in self.valid_dl) / len(self.valid_dl)
            history.append((epoch, train_loss, val_loss.item()))
            print(f"epoch {epoch}: train {train_loss:.4f} val {val_loss.item():.4f} ({time() - epoch_s_t:.1f}s)")
        return history


if __name__ == "__main__":
    x, y = torch.randn(200_000, 6), torch.randn(200_000, 1)
    train_dl = DataLoader(TensorDataset(x[:180_000], y[:180_000]), batch_size=4096, shuffle=True, pin_memory=True)
    valid_dl = DataLoader(TensorDataset(x[180_000:], y[180_000:]), batch_size=4096)
    ModelTrainerTorchMLP(MLP(), train_dl, valid_dl).train_and_evaluate()
