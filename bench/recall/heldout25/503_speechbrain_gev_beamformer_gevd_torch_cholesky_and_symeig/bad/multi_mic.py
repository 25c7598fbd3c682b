"""Multi-microphone processing: GEV beamforming and MUSIC localisation."""

import torch

import decomposition as eig


class Gev(torch.nn.Module):
    """Generalized eigenvalue beamformer.

    Xs: (batch, time, n_fft/2+1, 2, n_mics); SSs, NNs: target and noise
    covariances, (batch, time, n_fft/2+1, 2, n_mics + n_pairs).
    """

    def forward(self, Xs, SSs, NNs):
        return Gev._gev(Xs, SSs, NNs)

    @staticmethod
    def _gev(Xs, SSs, NNs):
        n_mics = Xs.shape[4]
        n_pairs = SSs.shape[4]

        # only decompose the distinct covariance frames
        both = torch.cat((SSs, NNs), dim=4)
        both_val, both_idx = torch.unique(both, return_inverse=True, dim=1)
        SSs = both_val[..., range(0, n_pairs)]
        NNs = eig.pos_def(both_val[..., range(n_pairs, 2 * n_pairs)])
        Vs, _ = eig.gevd(SSs, NNs)

        # principal generalized eigenvector, normalised
        F_re = Vs[..., n_mics - 1, 0]
        F_im = Vs[..., n_mics - 1, 1]
        norm = torch.sqrt(torch.sum(F_re ** 2 + F_im ** 2, dim=3, keepdim=True))
        F_re = (F_re / norm)[:, both_idx]
        F_im = (F_im / norm)[:, both_idx]

        X_re, X_im = Xs[..., 0, :], Xs[..., 1, :]
        Y_re = torch.sum(F_re * X_re + F_im * X_im, dim=3, keepdim=True)
        Y_im = torch.sum(F_re * X_im - F_im * X_re, dim=3, keepdim=True)
        return torch.stack((Y_re, Y_im), dim=3)


class Music(torch.nn.Module):
    """MUSIC direction-of-arrival estimation over a grid of candidate directions."""

    def __init__(self, doas, n_sig=1):
        super().__init__()
        self.doas = doas
        self.n_sig = n_sig

    def forward(self, XXs, As):
        n_mics = As.shape[3]
        svd_range = n_mics - self.n_sig
        XXs_val, XXs_idx = torch.unique(XXs, return_inverse=True, dim=1)
        Us, _ = eig.svdl(XXs_val)

        # noise subspace, projected on every steering vector
        Un_re = Us[..., range(0, svd_range), 0].unsqueeze(2)
        Un_im = Us[..., range(0, svd_range), 1].unsqueeze(2)
        A_re = As[..., 0, :].unsqueeze(-1)
        A_im = As[..., 1, :].unsqueeze(-1)
        proj_re = torch.sum(Un_re * A_re + Un_im * A_im, dim=-2)
        proj_im = torch.sum(Un_re * A_im - Un_im * A_re, dim=-2)
        spectrum = 1.0 / torch.sum(proj_re ** 2 + proj_im ** 2, dim=-1).clamp_min(1e-20)
        best = torch.argmax(torch.sum(spectrum, dim=-1), dim=-1)
        return self.doas[best][:, XXs_idx]
