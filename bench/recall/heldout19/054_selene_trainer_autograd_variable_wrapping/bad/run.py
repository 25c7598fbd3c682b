import numpy as np
import torch
from torch import nn

from train_model import TrainModel


class DeeperSEA(nn.Module):
    def __init__(self, sequence_length, n_targets):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv1d(4, 320, kernel_size=8), nn.ReLU(), nn.MaxPool1d(4),
            nn.Conv1d(320, 480, kernel_size=8), nn.ReLU(), nn.MaxPool1d(4),
            nn.Dropout(0.2),
        )
        reduced = ((sequence_length - 7) // 4 - 7) // 4
        self.classifier = nn.Sequential(nn.Linear(480 * reduced, n_targets), nn.Sigmoid())

    def forward(self, x):
        return self.classifier(self.conv(x).flatten(1))


class RandomSampler:
    def __init__(self, sequence_length, n_targets, seed=0):
        self.rng = np.random.default_rng(seed)
        self.sequence_length = sequence_length
        self.n_targets = n_targets

    def sample(self, batch_size):
        idx = self.rng.integers(0, 4, (batch_size, self.sequence_length))
        sequences = np.eye(4, dtype=np.float32)[idx]
        targets = self.rng.integers(0, 2, (batch_size, self.n_targets)).astype(np.float32)
        return sequences, targets


def main():
    sampler = RandomSampler(1000, 919)
    model = DeeperSEA(1000, 919)
    trainer = TrainModel(
        model,
        nn.BCELoss(),
        torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9),
        sampler,
        use_cuda=torch.cuda.is_available(),
    )
    validation = [sampler.sample(64) for _ in range(4)]
    trainer.train_and_validate(1000, validation)


if __name__ == "__main__":
    main()
