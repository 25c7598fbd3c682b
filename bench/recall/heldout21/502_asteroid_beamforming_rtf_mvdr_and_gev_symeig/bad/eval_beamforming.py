"""Mask-based beamforming on a multichannel mixture: SCMs from a separation network's masks."""
import torch
from torch import nn

from beamforming import SCM, GEVBeamformer, RTFMVDRBeamformer


class MaskNet(nn.Module):
    def __init__(self, n_freqs):
        super().__init__()
        self.rnn = nn.LSTM(n_freqs, 128, batch_first=True, bidirectional=True)
        self.out = nn.Linear(256, n_freqs)

    def forward(self, spec_mag):
        # spec_mag: (batch, freqs, frames) of the reference channel
        h, _ = self.rnn(spec_mag.transpose(1, 2))
        return torch.sigmoid(self.out(h)).transpose(1, 2)


def enhance(mix_stft, mask_net, beamformer):
    # mix_stft: complex (batch, mics, freqs, frames)
    speech_mask = mask_net(mix_stft[:, 0].abs())
    scm = SCM()
    target_scm = scm(mix_stft, speech_mask)
    noise_scm = scm(mix_stft, 1.0 - speech_mask)
    return beamformer(mix_stft, target_scm, noise_scm)


def main(kind="mvdr"):
    n_fft, hop = 512, 128
    wav = torch.randn(2, 4, 16000)
    window = torch.hann_window(n_fft)
    stft = torch.stft(wav.reshape(-1, 16000), n_fft, hop, window=window, return_complex=True)
    mix_stft = stft.reshape(2, 4, *stft.shape[-2:])
    mask_net = MaskNet(n_fft // 2 + 1).eval()
    beamformer = RTFMVDRBeamformer() if kind == "mvdr" else GEVBeamformer()
    with torch.no_grad():
        enhanced = enhance(mix_stft, mask_net, beamformer)
    print(kind, enhanced.shape)


if __name__ == "__main__":
    main("mvdr")
    main("gev")
