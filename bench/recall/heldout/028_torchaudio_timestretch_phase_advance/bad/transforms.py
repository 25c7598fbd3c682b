import math

import torch
from torchaudio.functional import phase_vocoder


class TimeStretch(torch.nn.Module):
    def __init__(self, hop_length=None, n_freq=201, fixed_rate=None):
        super().__init__()
        self.fixed_rate = fixed_rate
        n_fft = (n_freq - 1) * 2
        hop_length = hop_length if hop_length is not None else n_fft // 2
        self.phase_advance = torch.linspace(0, math.pi * hop_length, n_freq)[..., None]  # expect: TCK606

    def forward(self, complex_specgrams, overriding_rate=None):
        rate = self.fixed_rate if overriding_rate is None else overriding_rate
        if rate == 1.0:
            return complex_specgrams
        return phase_vocoder(complex_specgrams, rate, self.phase_advance)
