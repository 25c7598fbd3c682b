import torch

from .utils import apply_reduction


class SpectralConvergenceLoss(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x_mag, y_mag):
        return torch.norm(y_mag - x_mag, p="fro") / torch.norm(y_mag, p="fro")


class STFTMagnitudeLoss(torch.nn.Module):
    def __init__(self, log=True, reduction="mean"):
        super().__init__()
        self.log = log
        self.distance = torch.nn.L1Loss(reduction=reduction)

    def forward(self, x_mag, y_mag):
        if self.log:
            x_mag, y_mag = torch.log(x_mag), torch.log(y_mag)
        return self.distance(x_mag, y_mag)


class STFTLoss(torch.nn.Module):
    """Spectral convergence + log-magnitude loss, optionally on a mel or chroma scale."""

    def __init__(self, fft_size=1024, hop_size=256, win_length=1024, window="hann_window",
                 w_sc=1.0, w_log_mag=1.0, w_lin_mag=0.0, sample_rate=None, scale=None,
                 n_bins=None, eps=1e-8, reduction="mean", device=None):
        super().__init__()
        self.fft_size = fft_size
        self.hop_size = hop_size
        self.win_length = win_length
        self.window = getattr(torch, window)(win_length)
        self.w_sc = w_sc
        self.w_log_mag = w_log_mag
        self.w_lin_mag = w_lin_mag
        self.scale = scale
        self.eps = eps
        self.reduction = reduction
        self.device = device

        self.spectralconv = SpectralConvergenceLoss()
        self.logstft = STFTMagnitudeLoss(log=True, reduction=reduction)
        self.linstft = STFTMagnitudeLoss(log=False, reduction=reduction)

        if scale is not None:
            import librosa.filters

            if scale == "mel":
                assert sample_rate is not None and n_bins <= fft_size
                fb = librosa.filters.mel(sr=sample_rate, n_fft=fft_size, n_mels=n_bins)
            elif scale == "chroma":
                assert sample_rate is not None and n_bins <= fft_size
                fb = librosa.filters.chroma(sr=sample_rate, n_fft=fft_size, n_chroma=n_bins)
            else:
                raise ValueError(f"Invalid scale: {scale}. Must be 'mel' or 'chroma'.")
            # a buffer follows .to()/.cuda() of the loss module
            self.register_buffer("fb", torch.tensor(fb).unsqueeze(0))

        if scale is not None and device is not None:
            self.fb = self.fb.to(self.device)

    def stft(self, x):
        x_stft = torch.stft(x, self.fft_size, self.hop_size, self.win_length, self.window,
                            return_complex=True)
        return torch.sqrt(torch.clamp(x_stft.real ** 2 + x_stft.imag ** 2, min=self.eps))

    def forward(self, x, y):
        self.window = self.window.to(x.device)
        x_mag = self.stft(x.view(-1, x.size(-1)))
        y_mag = self.stft(y.view(-1, y.size(-1)))

        if self.scale is not None:
            x_mag = torch.matmul(self.fb, x_mag)
            y_mag = torch.matmul(self.fb, y_mag)

        sc_loss = self.spectralconv(x_mag, y_mag) if self.w_sc else 0.0
        log_loss = self.logstft(x_mag, y_mag) if self.w_log_mag else 0.0
        lin_loss = self.linstft(x_mag, y_mag) if self.w_lin_mag else 0.0
        loss = self.w_sc * sc_loss + self.w_log_mag * log_loss + self.w_lin_mag * lin_loss
        return apply_reduction(loss, reduction=self.reduction)


class MelSTFTLoss(STFTLoss):
    """STFT loss on a mel-scaled spectrogram."""

    def __init__(self, sample_rate, fft_size=1024, hop_size=256, win_length=1024,
                 window="hann_window", n_mels=128, **kwargs):
        super().__init__(fft_size, hop_size, win_length, window,
                         sample_rate=sample_rate, scale="mel", n_bins=n_mels, **kwargs)


class MultiResolutionSTFTLoss(torch.nn.Module):
    def __init__(self, fft_sizes=(1024, 2048, 512), hop_sizes=(120, 240, 50),
                 win_lengths=(600, 1200, 240), window="hann_window", sample_rate=None,
                 scale=None, n_bins=None, **kwargs):
        super().__init__()
        assert len(fft_sizes) == len(hop_sizes) == len(win_lengths)
        self.stft_losses = torch.nn.ModuleList()
        for fs, ss, wl in zip(fft_sizes, hop_sizes, win_lengths):
            self.stft_losses.append(
                STFTLoss(fs, ss, wl, window, sample_rate=sample_rate, scale=scale, n_bins=n_bins, **kwargs)
            )

    def forward(self, x, y):
        return sum(f(x, y) for f in self.stft_losses) / len(self.stft_losses)
