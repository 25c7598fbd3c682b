import torch
import torch.nn as nn
import torch.optim as optim


class BPRLoss(nn.Module):
    def forward(self, pos, neg):
        return -torch.log(torch.sigmoid(pos - neg) + 1e-10).sum()


class GeneralRecommender(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.device = "cuda" if torch.cuda.is_available() else "cpu"
        self.lr = config["lr"]
        self.epochs = config["epochs"]
        self.loss_type = config["loss_type"]

    def calc_loss(self, batch):
        raise NotImplementedError

    def _build_criterion(self, loss_type):
        if loss_type.upper() == "CL":
            return nn.BCEWithLogitsLoss(reduction="sum")
        if loss_type.upper() == "SL":
            return nn.MSELoss(reduction="sum")
        if loss_type.upper() == "BPR":
            return BPRLoss()
        raise NotImplementedError(loss_type)

    def fit(self, train_loader):
        self.to(self.device)
        optimizer = optim.Adam(self.parameters(), lr=self.lr)
        self.criterion = self._build_criterion(self.loss_type)
        for epoch in range(1, self.epochs + 1):
            self.train()
            running = 0.0
            for batch in train_loader:
                optimizer.zero_grad()
                loss = self.calc_loss(batch)
                loss.backward()
                optimizer.step()
                running += loss.item()
            print(f"epoch {epoch}: loss {running:.4f}")
