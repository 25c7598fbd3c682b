import torch
from torch import nn
from torch.nn import functional as F


class SCM(nn.Module):
    def forward(self, x, mask=None, normalize=True):
        return compute_scm(x, mask=mask, normalize=normalize)


class Beamformer(nn.Module):
    """Base class of the beamformers: applies a (batch, mics, freqs) filter to a mixture."""

    @staticmethod
    def apply_beamforming_vector(bf_vector, mix):
        return torch.einsum("...mf,...mft->...ft", bf_vector.conj(), mix)

    @staticmethod
    def reference_mic_vector(ref_mic, n_mics, batch, dtype, device):
        idx = torch.full((batch,), ref_mic, dtype=torch.long, device=device)
        return F.one_hot(idx, num_classes=n_mics)[:, None, :, None].to(dtype)


class RTFMVDRBeamformer(Beamformer):
    def forward(self, mix, target_scm, noise_scm):
        """MVDR from the relative transfer function, taken as the principal
        eigenvector of the target SCM (batch, mics, mics, freqs)."""
        e_val, e_vec = torch.symeig(target_scm.permute(0, 3, 1, 2), eigenvectors=True)  # expect: TCK901
        rtf_vect = e_vec[..., -1]
        return self.from_rtf_vect(mix=mix, rtf_vec=rtf_vect.transpose(-1, -2), noise_scm=noise_scm)

    def from_rtf_vect(self, mix, rtf_vec, noise_scm):
        noise_scm_t = noise_scm.permute(0, 3, 1, 2)
        rtf_vec_t = rtf_vec.transpose(-1, -2).unsqueeze(-1)
        numerator = stable_solve(rtf_vec_t, noise_scm_t)
        denominator = torch.matmul(rtf_vec_t.conj().transpose(-1, -2), numerator)
        bf_vect = (numerator / denominator).squeeze(-1).transpose(-1, -2)
        return self.apply_beamforming_vector(bf_vect, mix=mix)


class GEVBeamformer(Beamformer):
    def forward(self, mix, target_scm, noise_scm):
        bf_vect = self.compute_beamforming_vector(target_scm, noise_scm)
        return self.apply_beamforming_vector(bf_vect, mix=mix)

    @staticmethod
    def compute_beamforming_vector(target_scm, noise_scm):
        noise_scm_t = condition_scm(noise_scm.permute(0, 3, 1, 2), 1e-6)
        e_val, e_vec = generalized_eigenvalue_decomposition(target_scm.permute(0, 3, 1, 2), noise_scm_t)
        bf_vect = e_vec[..., -1]
        bf_vect = bf_vect / torch.norm(bf_vect, dim=-1, keepdim=True)
        return bf_vect.transpose(-1, -2)


def compute_scm(x, mask=None, normalize=True):
    """Spatial covariance matrix of a multichannel STFT x (batch, mics, freqs, frames)."""
    batch, mics, freqs, frames = x.shape
    if mask is None:
        mask = torch.ones(batch, 1, freqs, frames, device=x.device)
    if mask.ndim == 3:
        mask = mask[:, None]
    scm = torch.einsum("bmft,bnft->bmnf", mask * x, x.conj())
    if normalize:
        scm = scm / mask.sum(-1, keepdim=True).transpose(-1, -2)
    return scm


def condition_scm(x, eps=1e-6):
    scale = eps * batch_trace(x)[..., None, None] / x.shape[-2]
    scaled_eye = torch.eye(x.shape[-2], device=x.device)[None, None] * scale
    return (x + scaled_eye) / (1 + eps)


def batch_trace(x, dim1=-2, dim2=-1):
    return torch.diagonal(x, dim1=dim1, dim2=dim2).sum(-1)


def stable_solve(b, a):
    input_dtype = _common_dtype(b, a)
    solve_dtype = _precision_mapping().get(input_dtype, input_dtype)
    return _stable_solve(b.to(solve_dtype), a.to(solve_dtype)).to(input_dtype)


def _stable_solve(b, a, eps=1e-6):
    try:
        return torch.linalg.solve(a, b)
    except RuntimeError:
        return torch.linalg.solve(condition_scm(a, eps), b)


def stable_cholesky(input, eps=1e-6):
    input_dtype = input.dtype
    solve_dtype = _precision_mapping().get(input_dtype, input_dtype)
    try:
        out = torch.linalg.cholesky(input.to(solve_dtype))
    except RuntimeError:
        out = torch.linalg.cholesky(condition_scm(input.to(solve_dtype), eps))
    return out.to(input_dtype)


def generalized_eigenvalue_decomposition(a, b):
    """Generalized eigendecomposition through a Cholesky factor of b (ascending order)."""
    input_dtype = _common_dtype(a, b)
    solve_dtype = _precision_mapping().get(input_dtype, input_dtype)
    e_val, e_vec = _generalized_eigenvalue_decomposition(a.to(solve_dtype), b.to(solve_dtype))
    return e_val.to(input_dtype).real, e_vec.to(input_dtype)


def _generalized_eigenvalue_decomposition(a, b):
    cholesky = stable_cholesky(b)
    inv_cholesky = torch.inverse(cholesky)
    cmat = inv_cholesky @ a @ inv_cholesky.conj().transpose(-1, -2)
    e_val, e_vec = torch.symeig(cmat, eigenvectors=True)  # expect: TCK901
    e_vec = torch.matmul(inv_cholesky.conj().transpose(-1, -2), e_vec)
    return e_val, e_vec


def _common_dtype(*args):
    dtypes = {a.dtype for a in args}
    if len(dtypes) > 1:
        raise RuntimeError(f"Expected inputs of the same dtype, received {dtypes}.")
    return dtypes.pop()


def _precision_mapping():
    return {
        torch.float16: torch.float64,
        torch.float32: torch.float64,
        torch.complex64: torch.complex128,
    }
