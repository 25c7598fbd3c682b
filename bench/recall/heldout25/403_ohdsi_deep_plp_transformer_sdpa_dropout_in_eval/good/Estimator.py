import torch

from Transformer import Transformer


class Estimator:
    """Fits a model on batches of sparse patient features and predicts outcome risk."""

    def __init__(self, model_parameters, lr=3e-4, epochs=10, device="cpu"):
        self.device = torch.device(device)
        self.model = Transformer(**model_parameters).to(self.device)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=lr)
        self.criterion = torch.nn.BCEWithLogitsLoss()
        self.epochs = epochs

    def _to_device(self, batch):
        return {k: v.to(self.device) for k, v in batch.items()}

    def fit_epoch(self, loader):
        self.model.train()
        for batch, target in loader:
            logits = self.model(self._to_device(batch))
            loss = self.criterion(logits, target.to(self.device).float())
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()

    @torch.no_grad()
    def predict_proba(self, loader):
        self.model.eval()
        preds = [torch.sigmoid(self.model(self._to_device(batch))) for batch, _ in loader]
        return torch.cat(preds).cpu()

    def fit(self, train_loader, test_loader):
        for _ in range(self.epochs):
            self.fit_epoch(train_loader)
        return self.predict_proba(test_loader)
