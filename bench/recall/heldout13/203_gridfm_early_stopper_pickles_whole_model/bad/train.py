import torch
from torch import nn

from callbacks import EarlyStopper
from model import GridNet


def make_batch(num_nodes=118, num_edges=400, in_dim=6):
    x = torch.randn(num_nodes, in_dim)
    edge_index = torch.randint(0, num_nodes, (2, num_edges))
    mask = torch.rand(num_nodes, in_dim) < 0.3
    return x, edge_index, mask


class Trainer:
    def __init__(self, model: nn.Module, optimizer, device, early_stopper: EarlyStopper,
                 train_batches, val_batches):
        self.model = model
        self.optimizer = optimizer
        self.device = device
        self.early_stopper = early_stopper
        self.train_batches = train_batches
        self.val_batches = val_batches

    def _loss(self, x, edge_index, mask):
        masked = torch.where(mask, self.model.mask_value.expand_as(x), x)
        pred = self.model(masked, edge_index)
        return ((pred - x) ** 2)[mask].mean()

    def _one_epoch(self):
        self.model.train()
        for x, edge_index, mask in self.train_batches:
            x, edge_index, mask = x.to(self.device), edge_index.to(self.device), mask.to(self.device)
            loss = self._loss(x, edge_index, mask)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
        self.model.eval()
        val_loss = 0.0
        with torch.no_grad():
            for x, edge_index, mask in self.val_batches:
                x, edge_index, mask = x.to(self.device), edge_index.to(self.device), mask.to(self.device)
                val_loss += self._loss(x, edge_index, mask).item()
        return val_loss / len(self.val_batches)

    def train(self, epochs):
        for epoch in range(epochs):
            val_loss = self._one_epoch()
            print(f"epoch {epoch}: val {val_loss:.4f}")
            if self.early_stopper.early_stop(val_loss, self.model):
                break


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = GridNet().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    stopper = EarlyStopper("best_model.pth", patience=10)
    trainer = Trainer(model, optimizer, device, stopper,
                      [make_batch() for _ in range(32)], [make_batch() for _ in range(8)])
    trainer.train(epochs=100)
