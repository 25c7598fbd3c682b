import torch

from weighting_base import AbsWeighting


class AlignedMTL(AbsWeighting):
    """Aligns task gradients through the eigendecomposition of their Gram matrix."""

    def __init__(self):
        super().__init__()

    def backward(self, losses, **kwargs):
        grads = self._get_grads(losses)
        gram = grads @ grads.t()
        eigvals, eigvecs = torch.symeig(gram, eigenvectors=True)  # expect: TCK901
        tol = eigvals.max() * max(gram.shape[-2:]) * torch.finfo().eps
        rank = int((eigvals > tol).sum())
        order = torch.argsort(eigvals, dim=-1, descending=True)
        eigvals = eigvals[order][:rank]
        eigvecs = eigvecs[:, order][:, :rank]
        sigma = torch.diag(1.0 / eigvals.sqrt())
        basis = eigvals[-1].sqrt() * ((eigvecs @ sigma) @ eigvecs.t())
        alpha = basis.sum(0)
        self._apply_new_grads(alpha, grads)
        return alpha.detach().cpu().numpy()
