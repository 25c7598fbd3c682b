import logging

import torch

from fairchem.core.trainers.base_trainer import BaseTrainer


class OCPTrainer(BaseTrainer):
    def _forward(self, batch):
        return self.model(batch)

    def _compute_loss(self, out, batch):
        return torch.nn.functional.l1_loss(out["energy"], batch["energy"])

    def train(self, train_loader, max_epochs: int):
        for epoch in range(self.epoch, max_epochs):
            self.epoch = epoch
            self.model.train()
            for batch in train_loader:
                batch = {k: v.to(self.device) for k, v in batch.items()}
                with torch.autocast("cuda", enabled=self.scaler is not None):
                    out = self._forward(batch)
                    loss = self._compute_loss(out, batch)
                loss = self.scaler.scale(loss) if self.scaler else loss
                self._backward(loss)
                self.step += 1
                if self.step % 100 == 0:
                    scale = self.scaler.get_scale() if self.scaler else 1.0
                    logging.info(f"step {self.step} loss {loss.item() / scale:.4f}")
            self.save("checkpoint.pt")

    @torch.no_grad()
    def predict(self, loader):
        self.model.eval()
        predictions = []
        for batch in loader:
            batch = {k: v.to(self.device) for k, v in batch.items()}
            with torch.autocast("cuda", enabled=self.scaler is not None):
                out = self._forward(batch)
            predictions.append(out["energy"].float().cpu())
        return torch.cat(predictions)
