import torch
import torch.nn.functional as F

from base_trainer import BaseTrainer


class EnergyTrainer(BaseTrainer):
    """Trains a graph network to predict the adsorption energy of a structure."""

    def _forward(self, batch):
        batch = batch.to(self.device)
        return {"energy": self.model(batch).view(-1)}

    def _compute_loss(self, out, batch):
        return F.l1_loss(out["energy"], batch.y.to(self.device))

    def train(self, max_epochs):
        for epoch in range(max_epochs):
            self.model.train()
            for batch in self.train_loader:
                with torch.autocast("cuda", enabled=self.scaler is not None):
                    out = self._forward(batch)
                    loss = self._compute_loss(out, batch)
                self.optimizer.zero_grad()
                if self.scaler is not None:
                    self.scaler.scale(loss).backward()
                    self.scaler.step(self.optimizer)
                    self.scaler.update()
                else:
                    loss.backward()
                    self.optimizer.step()
            self.validate(split="val", epoch=epoch)
