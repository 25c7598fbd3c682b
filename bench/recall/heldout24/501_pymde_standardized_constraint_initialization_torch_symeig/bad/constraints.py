import abc

import torch


class Constraint(abc.ABC):
    """Base class of the constraint sets an embedding can be restricted to."""

    @abc.abstractmethod
    def name(self) -> str:
        raise NotImplementedError

    @abc.abstractmethod
    def initialization(self, n_items, embedding_dim, device=None) -> torch.Tensor:
        """A random point of the constraint set, shape (n_items, embedding_dim)."""
        raise NotImplementedError

    @abc.abstractmethod
    def project_onto_constraint(self, Z, inplace=True) -> torch.Tensor:
        raise NotImplementedError

    @abc.abstractmethod
    def project_onto_tangent_space(self, X, Z, inplace=True) -> torch.Tensor:
        raise NotImplementedError


class _Centered(Constraint):
    def name(self):
        return "centered"

    def initialization(self, n_items, embedding_dim, device=None):
        X = torch.randn((n_items, embedding_dim), device=device)
        return X - X.mean(dim=0)

    def project_onto_tangent_space(self, X, Z, inplace=True):
        return Z

    def project_onto_constraint(self, Z, inplace=True):
        if inplace:
            return Z.sub_(Z.mean(dim=0))
        return Z - Z.mean(dim=0)


def _standardize(X, inplace=False):
    """Closest matrix with centered columns and (1/n) X^T X = I."""
    X = X if inplace else X.clone()
    X.sub_(X.mean(dim=0))
    n = X.shape[0]
    U, _, Vh = torch.linalg.svd(X, full_matrices=False)
    X.copy_((U @ Vh) * (n ** 0.5))
    return X


class _Standardized(Constraint):
    """Centered embeddings whose columns are orthogonal with norm sqrt(n)."""

    def name(self):
        return "standardized"

    def initialization(self, n_items, embedding_dim, device=None):
        X = torch.randn((n_items, embedding_dim), device=device)
        X -= X.mean(dim=0)
        if not isinstance(n_items, torch.Tensor):
            n_items = torch.tensor(n_items, dtype=X.dtype, device=device)
        # whiten the random start: eigen-decomposition of the Gram matrix
        lmbda, Q = torch.symeig(X.T @ X, eigenvectors=True)  # expect: TCK901
        X = X @ Q @ torch.diag(lmbda ** (-0.5)) * n_items.type(X.dtype).sqrt()
        return X

    def project_onto_tangent_space(self, X, Z, inplace=True):
        n = X.shape[0]
        gtx = Z.T @ X
        if inplace:
            return Z.sub_((1.0 / n) * X @ gtx)
        return Z - (1.0 / n) * X @ gtx

    def project_onto_constraint(self, Z, inplace=True):
        return _standardize(Z, inplace=inplace)


_CENTERED = _Centered()
_STANDARDIZED = _Standardized()


def Centered():
    return _CENTERED


def Standardized():
    return _STANDARDIZED
