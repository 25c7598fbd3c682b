import numpy as np
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from networks import FusionGenerator


def synthesis_errors(pred, target):
    mse = F.mse_loss(pred, target).item()
    psnr = 10 * np.log10(4.0 / max(mse, 1e-10))
    return {"MSE": mse, "PSNR": psnr}


class SynthModel:
    def __init__(self, train_loader, test_loader, device, lr=2e-4, epochs=5):
        self.train_loader = train_loader
        self.test_loader = test_loader
        self.device = device
        self.epochs = epochs
        self.generator = FusionGenerator().to(device)
        self.optimizer = torch.optim.Adam(self.generator.parameters(), lr=lr)

    def train(self):
        for epoch in range(self.epochs):
            for x1, x2, y in self.train_loader:
                x = torch.cat([x1, x2], dim=1).to(self.device)
                y = y.to(self.device)
                self.optimizer.zero_grad()
                loss = F.l1_loss(self.generator(x), y)
                loss.backward()
                self.optimizer.step()
            self.test(epoch)

    def test(self, epoch):
        results = []
        for x1, x2, y in self.test_loader:
            x = torch.cat([x1, x2], dim=1).to(self.device)
            pred = self.generator(x)  # expect: TCK114
            errors = synthesis_errors(pred, y.to(self.device))
            results.append([errors["MSE"], errors["PSNR"]])
        results = np.array(results)
        print(epoch, results[:, 0].mean(), results[:, 1].mean())


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    def make(n):
        return TensorDataset(torch.randn(n, 1, 32, 32), torch.randn(n, 1, 32, 32), torch.randn(n, 1, 32, 32))

    model = SynthModel(DataLoader(make(64), batch_size=8, shuffle=True), DataLoader(make(16), batch_size=8), device)
    model.train()
