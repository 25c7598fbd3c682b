import numpy as np
import torch
from torch import nn


def rolling_windows(values: np.ndarray, window: int, batch_size: int):
    """Yield batches of flattened sliding windows over a (time, dim) array."""
    windows = np.stack([values[i:i + window].reshape(-1) for i in range(len(values) - window + 1)])
    for start in range(0, len(windows), batch_size):
        yield windows[start:start + batch_size]


class AEModule(nn.Module):
    def __init__(self, input_size: int, hidden_size: int = 5, layer_sizes=(25, 10, 5)):
        super().__init__()
        enc, prev = [], input_size
        for size in layer_sizes:
            enc += [nn.Linear(prev, size), nn.ReLU()]
            prev = size
        self.encoder = nn.Sequential(*enc, nn.Linear(prev, hidden_size))
        dec, prev = [], hidden_size
        for size in reversed(layer_sizes):
            dec += [nn.Linear(prev, size), nn.ReLU()]
            prev = size
        self.decoder = nn.Sequential(*dec, nn.Linear(prev, input_size))

    def forward(self, x):
        recon = self.decoder(self.encoder(x))
        return torch.norm(x - recon, dim=1)


class AutoEncoderDetector:
    """Reconstruction-error anomaly detector over sliding windows."""

    def __init__(self, sequence_len: int = 16, lr: float = 5e-4, num_epochs: int = 10,
                 batch_size: int = 512, device: str = "cpu"):
        self.sequence_len = sequence_len
        self.lr = lr
        self.num_epochs = num_epochs
        self.batch_size = batch_size
        self.device = device
        self.model = None

    def train(self, values: np.ndarray) -> np.ndarray:
        self.model = AEModule(input_size=values.shape[1] * self.sequence_len).to(self.device)
        optimizer = torch.optim.Adam(self.model.parameters(), lr=self.lr)
        self.model.train()
        for epoch in range(self.num_epochs):
            total = 0.0
            for batch in rolling_windows(values, self.sequence_len, self.batch_size):
                x = torch.tensor(batch, dtype=torch.float32, device=self.device)
                loss = self.model(x).mean()
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                total += loss.item()
            print(f"epoch {epoch}: loss {total:.4f}")
        return self._get_anomaly_score(values)

    def _get_anomaly_score(self, values: np.ndarray) -> np.ndarray:
        self.model.eval()
        scores = []
        with torch.no_grad():
            for batch in rolling_windows(values, self.sequence_len, self.batch_size):
                y = torch.tensor(batch, dtype=torch.float32, device=self.device)
                scores.append(self.model(y).cpu().numpy())
        return np.concatenate(scores)
