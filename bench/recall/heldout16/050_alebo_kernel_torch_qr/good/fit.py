import torch
from botorch.models import SingleTaskGP
from gpytorch.kernels import ScaleKernel
from gpytorch.mlls import ExactMarginalLogLikelihood

from kernels import ProjectedMahalanobisKernel


class EmbeddedGP(SingleTaskGP):
    def __init__(self, proj, train_x, train_y):
        super().__init__(train_X=train_x, train_Y=train_y)
        self.covar_module = ScaleKernel(ProjectedMahalanobisKernel(proj))


def fit(proj, train_x, train_y, steps=200):
    model = EmbeddedGP(proj, train_x, train_y)
    mll = ExactMarginalLogLikelihood(model.likelihood, model)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
    model.train()
    for _ in range(steps):
        optimizer.zero_grad()
        loss = -mll(model(train_x), train_y.squeeze(-1))
        loss.backward()
        optimizer.step()
    return model


if __name__ == "__main__":
    proj = torch.randn(2, 10, dtype=torch.double)
    x = torch.rand(20, 2, dtype=torch.double)
    y = torch.sin(x.sum(-1, keepdim=True))
    fit(proj, x, y)
