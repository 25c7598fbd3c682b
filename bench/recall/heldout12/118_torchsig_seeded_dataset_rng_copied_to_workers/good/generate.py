import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset, get_worker_info


class SignalDataset(Dataset):
    """Synthesises noisy QPSK-like bursts on the fly; every sample gets a random SNR,
    phase offset and frequency shift."""

    def __init__(self, num_samples=10000, num_iq=1024, num_classes=8, seed=None):
        self.num_samples = num_samples
        self.num_iq = num_iq
        self.num_classes = num_classes
        self.random_generator = np.random.default_rng(seed)

    def __len__(self):
        return self.num_samples

    def __getitem__(self, index):
        label = index % self.num_classes
        symbols = np.exp(1j * (np.pi / 4 + np.pi / 2 * (np.arange(self.num_iq) * (label + 1) % 4)))
        snr_db = self.random_generator.uniform(-2.0, 20.0)
        phase = self.random_generator.uniform(0.0, 2 * np.pi)
        shift = self.random_generator.uniform(-0.05, 0.05)
        t = np.arange(self.num_iq)
        iq = symbols * np.exp(1j * (phase + 2 * np.pi * shift * t))
        noise_power = 10 ** (-snr_db / 10)
        iq = iq + np.sqrt(noise_power / 2) * (np.random.standard_normal(self.num_iq)
                                               + 1j * np.random.standard_normal(self.num_iq))
        x = torch.from_numpy(np.stack([iq.real, iq.imag]).astype(np.float32))
        return x, label


class Classifier(nn.Module):
    def __init__(self, num_classes=8):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv1d(2, 32, 7, padding=3), nn.ReLU(),
            nn.Conv1d(32, 64, 7, padding=3), nn.ReLU(),
            nn.AdaptiveAvgPool1d(1), nn.Flatten(), nn.Linear(64, num_classes),
        )

    def forward(self, x):
        return self.net(x)


def seed_worker(worker_id):
    info = get_worker_info()
    info.dataset.random_generator = np.random.default_rng(info.seed)


def main():
    dataset = SignalDataset(seed=1234)
    loader = DataLoader(dataset, batch_size=64, shuffle=True, num_workers=8, worker_init_fn=seed_worker)
    model = Classifier()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(3):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        print(epoch, loss.item())


if __name__ == "__main__":
    main()
