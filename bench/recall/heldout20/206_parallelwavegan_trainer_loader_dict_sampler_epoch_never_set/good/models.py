import torch
import torch.nn as nn


class ParallelWaveGANGenerator(nn.Module):
    def __init__(self, aux_channels=80, channels=64, upsample=256):
        super().__init__()
        self.upsample = nn.Upsample(scale_factor=upsample, mode="nearest")
        self.conv_aux = nn.Conv1d(aux_channels, channels, 1)
        self.conv_in = nn.Conv1d(1, channels, 1)
        self.body = nn.Sequential(*[nn.Sequential(nn.Conv1d(channels, channels, 3, padding=d, dilation=d), nn.ReLU())
                                    for d in (1, 2, 4, 8)])
        self.conv_out = nn.Conv1d(channels, 1, 1)

    def forward(self, z, c):
        h = self.conv_in(z) + self.conv_aux(self.upsample(c))
        return self.conv_out(self.body(h))


class ParallelWaveGANDiscriminator(nn.Module):
    def __init__(self, channels=64, layers=6):
        super().__init__()
        convs = [nn.Conv1d(1, channels, 3, padding=1), nn.LeakyReLU(0.2)]
        for _ in range(layers - 2):
            convs += [nn.Conv1d(channels, channels, 3, padding=1), nn.LeakyReLU(0.2)]
        convs += [nn.Conv1d(channels, 1, 3, padding=1)]
        self.net = nn.Sequential(*convs)

    def forward(self, x):
        return self.net(x)


class STFTLoss(nn.Module):
    def __init__(self, fft_size=1024, hop=120, win=600):
        super().__init__()
        self.fft_size, self.hop, self.win = fft_size, hop, win
        self.register_buffer("window", torch.hann_window(win))

    def _mag(self, x):
        spec = torch.stft(x, self.fft_size, self.hop, self.win, self.window, return_complex=True)
        return spec.abs().clamp(min=1e-7)

    def forward(self, y_hat, y):
        m_hat, m = self._mag(y_hat.squeeze(1)), self._mag(y.squeeze(1))
        sc = torch.norm(m - m_hat, p="fro") / torch.norm(m, p="fro")
        mag = torch.nn.functional.l1_loss(torch.log(m), torch.log(m_hat))
        return sc, mag
