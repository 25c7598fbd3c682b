from abc import ABC, abstractmethod

import torch


class Evaluator:
    def __init__(self):
        self.sums, self.counts = {}, {}

    def update(self, key, value, n=1):
        self.sums[key] = self.sums.get(key, 0.0) + value * n
        self.counts[key] = self.counts.get(key, 0) + n

    def aggregate(self):
        return {k: self.sums[k] / self.counts[k] for k in self.sums}


class BaseTrainer(ABC):
    def __init__(self, model, train_loader, val_loader, optimizer, device, amp=False):
        self.model = model.to(device)
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.optimizer = optimizer
        self.device = device
        self.scaler = torch.cuda.amp.GradScaler() if amp else None

    @abstractmethod
    def _forward(self, batch):
        """Run the model on a batch and return its predictions."""

    @abstractmethod
    def _compute_loss(self, out, batch):
        """Loss of the predictions against the batch targets."""

    @torch.no_grad()
    def validate(self, split="val", epoch=None):
        print(f"### Evaluating on {split}.")
        self.model.eval()
        evaluator = Evaluator()
        for batch in self.val_loader:
            with torch.autocast("cuda", enabled=self.scaler is not None):
                out = self._forward(batch)
            loss = self._compute_loss(out, batch)
            evaluator.update("loss", loss.item())
            evaluator.update("energy_mae", (out["energy"] - batch.y.to(self.device)).abs().mean().item())
        metrics = evaluator.aggregate()
        print(f"epoch {epoch}: " + ", ".join(f"{k} {v:.4f}" for k, v in metrics.items()))
        return metrics
