import torch
from torch import nn

from beamformers import LowRankGEVDBeamformer, MWFBeamformer, spatial_covariance


class MaskEstimator(nn.Module):
    def __init__(self, n_freqs=257, hidden=256):
        super().__init__()
        self.rnn = nn.LSTM(n_freqs, hidden, batch_first=True, bidirectional=True)
        self.proj = nn.Linear(2 * hidden, n_freqs)

    def forward(self, magnitude):
        # magnitude: (batch, freqs, frames)
        h, _ = self.rnn(magnitude.transpose(1, 2))
        return torch.sigmoid(self.proj(h)).transpose(1, 2).unsqueeze(1)


def enhance(mix_stft, mask_net, beamformer):
    mask = mask_net(mix_stft[:, 0].abs())
    target_scm = spatial_covariance(mix_stft, mask)
    noise_scm = spatial_covariance(mix_stft, 1.0 - mask)
    return beamformer(mix_stft, target_scm, noise_scm)


@torch.no_grad()
def main(kind="gevd"):
    mask_net = MaskEstimator().eval()
    beamformer = LowRankGEVDBeamformer(mu=1.0, rank=1) if kind == "gevd" else MWFBeamformer(mu=1.0)
    waveform = torch.randn(2, 4, 16000)
    window = torch.hann_window(512)
    stft = torch.stft(waveform.flatten(0, 1), 512, 128, window=window, return_complex=True)
    stft = stft.view(2, 4, *stft.shape[-2:])
    enhanced = enhance(stft, mask_net, beamformer)
    print(enhanced.shape)


if __name__ == "__main__":
    main()
