import torch
import torch.nn.functional as F
from torch import nn
from torch.nn import Module, ModuleList
from torch.utils.checkpoint import checkpoint


class FeedForward(Module):
    def __init__(self, dim, mult=4):
        super().__init__()
        self.net = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, dim * mult), nn.GELU(), nn.Linear(dim * mult, dim))

    def forward(self, x):
        return x + self.net(x)


class Transformer(Module):
    def __init__(self, dim, depth, heads=8):
        super().__init__()
        self.layers = ModuleList(
            [ModuleList([nn.MultiheadAttention(dim, heads, batch_first=True), FeedForward(dim)]) for _ in range(depth)]
        )
        self.norm = nn.LayerNorm(dim)

    def forward(self, x):
        for attn, ff in self.layers:
            x = x + attn(x, x, x, need_weights=False)[0]
            x = ff(x)
        return self.norm(x)


class BandSplit(Module):
    def __init__(self, dim, freqs_per_band):
        super().__init__()
        self.freqs_per_band = freqs_per_band
        self.to_features = ModuleList([nn.Linear(2 * f, dim) for f in freqs_per_band])

    def forward(self, x):
        bands = x.split([2 * f for f in self.freqs_per_band], dim=-1)
        return torch.stack([proj(band) for band, proj in zip(bands, self.to_features)], dim=-2)


class BandRoformer(Module):
    def __init__(self, dim=128, depth=4, freqs_per_band=(64, 64, 128, 257), use_torch_checkpoint=False):
        super().__init__()
        self.use_torch_checkpoint = use_torch_checkpoint
        self.band_split = BandSplit(dim, freqs_per_band)
        self.layers = ModuleList([ModuleList([Transformer(dim, 1), Transformer(dim, 1)]) for _ in range(depth)])
        self.mask_estimator = nn.Linear(dim, 2 * max(freqs_per_band))
        self.n_fft = 1024

    def forward(self, audio):
        window = torch.hann_window(self.n_fft, device=audio.device)
        spec = torch.stft(audio, self.n_fft, hop_length=256, window=window, return_complex=True)
        spec = torch.view_as_real(spec)
        b, f, t, c = spec.shape
        x = spec.permute(0, 2, 1, 3).reshape(b, t, f * c)

        if self.use_torch_checkpoint:
            x = checkpoint(self.band_split, x)  # expect: TCK906
        else:
            x = self.band_split(x)

        for time_transformer, freq_transformer in self.layers:
            bands = x.shape[2]
            x = x.permute(0, 2, 1, 3).reshape(b * bands, t, -1)
            if self.use_torch_checkpoint:
                x = checkpoint(time_transformer, x)  # expect: TCK906
            else:
                x = time_transformer(x)
            x = x.reshape(b, bands, t, -1).permute(0, 2, 1, 3).reshape(b * t, bands, -1)
            if self.use_torch_checkpoint:
                x = checkpoint(freq_transformer, x)  # expect: TCK906
            else:
                x = freq_transformer(x)
            x = x.reshape(b, t, bands, -1)

        mask = self.mask_estimator(x.mean(dim=2))
        return torch.sigmoid(mask)


def separation_loss(model, mixture, target_mask):
    return F.l1_loss(model(mixture), target_mask)
