import torch


class SpectralConvergenceLoss(torch.nn.Module):
    """Frobenius norm of the magnitude error, relative to the target magnitude."""

    def __init__(self):
        super(SpectralConvergenceLoss, self).__init__()

    def forward(self, x_mag, y_mag):
        return torch.norm(y_mag - x_mag, p="fro") / torch.norm(y_mag, p="fro")


class STFTLoss(torch.nn.Module):
    def __init__(self, fft_size=1024, hop_size=256, win_length=1024):
        super(STFTLoss, self).__init__()
        self.fft_size = fft_size
        self.hop_size = hop_size
        self.win_length = win_length
        self.register_buffer("window", torch.hann_window(win_length))
        self.spectral_convergence = SpectralConvergenceLoss()

    def stft(self, x):
        spec = torch.stft(x.reshape(-1, x.shape[-1]), self.fft_size, self.hop_size, self.win_length,
                          self.window, return_complex=True)
        return spec.abs().clamp(min=1e-8)

    def forward(self, input, target):
        x_mag, y_mag = self.stft(input), self.stft(target)
        log_mag = torch.nn.functional.l1_loss(torch.log(x_mag), torch.log(y_mag))
        return self.spectral_convergence(x_mag, y_mag) + log_mag
