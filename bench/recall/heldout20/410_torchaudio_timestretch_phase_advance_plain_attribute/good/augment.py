import random

import torch

from torchaudio.transforms import TimeStretch


class SpeedPerturb(torch.nn.Module):
    """Random time stretch of a batch of complex spectrograms, used as on-GPU augmentation."""

    def __init__(self, n_freq=201, hop_length=160, rates=(0.9, 1.0, 1.1)):
        super().__init__()
        self.rates = rates
        self.stretch = TimeStretch(hop_length=hop_length, n_freq=n_freq)

    def forward(self, complex_specgrams):
        if not self.training:
            return complex_specgrams
        return self.stretch(complex_specgrams, random.choice(self.rates))


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    augment = SpeedPerturb().to(device)
    specs = torch.randn(4, 1, 201, 400, 2, device=device)
    print(augment(specs).shape)
