import torch
import torch.nn as nn
import torch.nn.functional as F


class Generator(nn.Module):
    """Mel-spectrogram to waveform generator (upsampling conv stack)."""

    def __init__(self, n_mels=80, channels=256, ratios=(8, 8, 4)):
        super().__init__()
        layers = [nn.Conv1d(n_mels, channels, 7, padding=3)]
        for r in ratios:
            layers += [
                nn.LeakyReLU(0.2),
                nn.ConvTranspose1d(channels, channels // 2, r * 2, stride=r, padding=r // 2),
            ]
            channels //= 2
        layers += [nn.LeakyReLU(0.2), nn.Conv1d(channels, 1, 7, padding=3), nn.Tanh()]
        self.net = nn.Sequential(*layers)

    def forward(self, mel):
        return self.net(mel)


class ScaleDiscriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList(
            [
                nn.Conv1d(1, 16, 15, padding=7),
                nn.Conv1d(16, 64, 41, stride=4, padding=20, groups=4),
                nn.Conv1d(64, 256, 41, stride=4, padding=20, groups=16),
                nn.Conv1d(256, 256, 5, padding=2),
            ]
        )
        self.out = nn.Conv1d(256, 1, 3, padding=1)

    def forward(self, x):
        feats = []
        for layer in self.layers:
            x = F.leaky_relu(layer(x), 0.2)
            feats.append(x)
        return feats, self.out(x)


class MultiScaleDiscriminator(nn.Module):
    def __init__(self, n_scales=3):
        super().__init__()
        self.discriminators = nn.ModuleList([ScaleDiscriminator() for _ in range(n_scales)])
        self.pool = nn.AvgPool1d(4, stride=2, padding=1, count_include_pad=False)

    def forward(self, x):
        outs = []
        for disc in self.discriminators:
            outs.append(disc(x))
            x = self.pool(x)
        return outs


def stft_loss(fake, real, n_fft=1024, hop=256):
    window = torch.hann_window(n_fft, device=fake.device)
    f = torch.stft(fake, n_fft, hop, window=window, return_complex=True).abs()
    r = torch.stft(real, n_fft, hop, window=window, return_complex=True).abs()
    sc = torch.norm(r - f, p="fro") / torch.norm(r, p="fro")
    mag = F.l1_loss(torch.log(f + 1e-7), torch.log(r + 1e-7))
    return sc, mag
