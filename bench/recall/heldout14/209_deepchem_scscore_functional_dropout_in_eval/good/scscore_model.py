import torch
import torch.nn.functional as F

from scscore import ScScore


class ScScoreModel:
    """Trains ScScore on (more complex, less complex) reaction pairs with a hinge loss."""

    def __init__(self, n_features=1024, dropout=0.2, lr=1e-3, device="cpu"):
        self.device = torch.device(device)
        self.model = ScScore(n_features, dropout=dropout).to(self.device)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=lr)

    def fit(self, loader, epochs=10, margin=0.25):
        for _ in range(epochs):
            self.model.train()
            for product_fp, reactant_fp in loader:
                s_prod = self.model(product_fp.to(self.device))
                s_reac = self.model(reactant_fp.to(self.device))
                loss = F.relu(margin - (s_prod - s_reac)).mean()
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()

    def predict(self, fingerprints):
        self.model.eval()
        with torch.no_grad():
            return self.model(fingerprints.to(self.device)).squeeze(-1).cpu()
