import torch
from torch import nn


class Beamformer(nn.Module):
    """Common helpers shared by all beamformers."""

    @staticmethod
    def apply_vector(weights: torch.Tensor, mix: torch.Tensor) -> torch.Tensor:
        # weights: (batch, mics, freqs), mix: (batch, mics, freqs, frames)
        return torch.einsum("bmf,bmft->bft", weights.conj(), mix)


class MWFBeamformer(Beamformer):
    """Speech-distortion-weighted multichannel Wiener filter."""

    def __init__(self, mu: float = 1.0, ref_mic: int = 0):
        super().__init__()
        self.mu = mu
        self.ref_mic = ref_mic

    def forward(self, mix, target_scm, noise_scm):
        # scm: (batch, mics, mics, freqs) -> (batch, freqs, mics, mics)
        t = target_scm.permute(0, 3, 1, 2)
        n = noise_scm.permute(0, 3, 1, 2)
        w = torch.linalg.solve(t + self.mu * n, t)[..., self.ref_mic]
        return self.apply_vector(w.permute(0, 2, 1), mix)


class LowRankGEVDBeamformer(Beamformer):
    """MWF computed in the generalised eigenspace, keeping the `rank` largest eigenvalues."""

    def __init__(self, mu: float = 1.0, rank: int = 1):
        super().__init__()
        self.mu = mu
        self.rank = rank

    def weights(self, target_scm, noise_scm):
        t = target_scm.permute(0, 3, 1, 2)
        n = noise_scm.permute(0, 3, 1, 2)
        chol = torch.linalg.cholesky(n)
        inv_chol = torch.linalg.inv(chol)
        whitened = inv_chol @ t @ inv_chol.mH
        values, vectors = torch.linalg.eigh(whitened)
        vectors = inv_chol.mH @ vectors
        values = torch.flip(values.clamp(min=1e-6, max=1e6), [-1])
        vectors = torch.flip(vectors, [-1])
        if self.rank:
            values[..., self.rank:] = 0.0
        gains = values / (values + self.mu)
        w = vectors @ torch.diag_embed(gains).to(vectors.dtype) @ torch.linalg.inv(vectors)
        return w[..., 0].permute(0, 2, 1)

    def forward(self, mix, target_scm, noise_scm):
        return self.apply_vector(self.weights(target_scm, noise_scm), mix)


def spatial_covariance(stft: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    # stft: (batch, mics, freqs, frames), mask: (batch, 1, freqs, frames)
    masked = stft * mask
    scm = torch.einsum("bmft,bnft->bmnf", masked, stft.conj())
    return scm / mask.sum(-1, keepdim=True).clamp(min=1e-8).transpose(1, 2)
