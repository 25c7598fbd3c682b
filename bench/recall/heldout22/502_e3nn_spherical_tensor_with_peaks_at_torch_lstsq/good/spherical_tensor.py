import torch

from harmonics import spherical_harmonics


class SphericalTensor:
    """Coefficients A^l (l = 0..lmax) of a signal f(x) = sum_l A^l . Y^l(x) on the sphere."""

    def __init__(self, lmax, p_val=1, p_arg=-1):
        self.lmax = lmax
        self.p_val = p_val
        self.p_arg = p_arg

    @property
    def dim(self):
        return (self.lmax + 1) ** 2

    def with_peaks_at(self, vectors, values=None):
        """Coefficients of a signal with peaks at `vectors`, of height `values` (default: the norms)."""
        if values is not None:
            vectors, values = torch.broadcast_tensors(vectors, values[..., None])
            values = values[..., 0]

        if vectors.numel() == 0:
            return torch.zeros(vectors.shape[:-2] + (self.dim,))

        assert self.p_val == 1, "the peak height is set by an even radius, so p_val must be 1"
        assert vectors.dim() == 2 and vectors.shape[1] == 3

        if values is None:
            values = vectors.norm(dim=1)
        vectors = vectors[values != 0]
        values = values[values != 0]

        coeff = spherical_harmonics(self.lmax, vectors)  # [batch, dim]
        gram = torch.einsum("ai,bi->ab", coeff, coeff)
        # Y(v_a) . Y(v_b) solution_b = values_a
        solution = torch.linalg.lstsq(gram, values[:, None]).solution.reshape(-1)
        assert (values - gram @ solution).abs().max() < 1e-5 * values.abs().max()
        return solution @ coeff

    def signal_xyz(self, x, vectors):
        """Evaluate the signal with coefficients `x` at the directions `vectors`."""
        return spherical_harmonics(self.lmax, vectors) @ x
