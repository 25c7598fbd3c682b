import torch

import constraints


class MDE(torch.nn.Module):
    """Minimum-distortion embedding of a weighted graph."""

    def __init__(self, n_items, embedding_dim, edges, weights, constraint=None, device="cpu"):
        super().__init__()
        self.n_items = n_items
        self.embedding_dim = embedding_dim
        self.device = torch.device(device)
        self.edges = edges.to(self.device)
        self.weights = weights.to(self.device)
        if constraint is None:
            constraint = constraints.Centered()
        self.constraint = constraint
        self.X = None

    def distortion(self, X):
        diff = X[self.edges[:, 0]] - X[self.edges[:, 1]]
        return (self.weights * (diff ** 2).sum(dim=1)).mean()

    def embed(self, X=None, max_iter=300, lr=0.1):
        if X is None:
            X = self.constraint.initialization(self.n_items, self.embedding_dim, self.device)
        else:
            X = X.detach().clone()
        X.requires_grad_(True)
        for _ in range(max_iter):
            loss = self.distortion(X)
            (grad,) = torch.autograd.grad(loss, X)
            with torch.no_grad():
                step = self.constraint.project_onto_tangent_space(X, grad, inplace=False)
                X -= lr * step
                self.constraint.project_onto_constraint(X, inplace=True)
        self.X = X.detach()
        return self.X


def preserve_neighbors(edges, weights, n_items, embedding_dim=2):
    """Standardized embedding that keeps the given neighbours close."""
    mde = MDE(n_items, embedding_dim, edges, weights, constraint=constraints.Standardized())
    return mde.embed()


if __name__ == "__main__":
    n = 200
    edges = torch.randint(0, n, (1000, 2))
    weights = torch.rand(1000)
    print(preserve_neighbors(edges, weights, n).shape)
