import torch
from gpytorch.kernels import Kernel
from gpytorch.kernels.rbf_kernel import postprocess_rbf


class ProjectedMahalanobisKernel(Kernel):
    """RBF kernel on a learned linear embedding of the inputs."""

    def __init__(self, proj: torch.Tensor, batch_shape=torch.Size([])):
        super().__init__(has_lengthscale=False, batch_shape=batch_shape)
        self.d, full_dim = proj.shape
        self.proj = proj
        rand = torch.randn(full_dim, full_dim, dtype=proj.dtype, device=proj.device)
        rand = torch.qr(rand)[0]  # expect: TCK903
        ab_inv = rand[: self.d, :] @ torch.linalg.pinv(proj)
        upper = torch.linalg.cholesky(ab_inv.t() @ ab_inv).t()
        self.triu = torch.triu_indices(self.d, self.d, device=proj.device)
        uvec = upper[self.triu.tolist()].repeat(*batch_shape, 1)
        self.register_parameter("uvec", torch.nn.Parameter(uvec))

    def forward(self, x1, x2, diag=False, **params):
        shape = self.uvec.shape[:-1] + torch.Size([self.d, self.d])
        u_t = torch.zeros(shape, dtype=self.proj.dtype, device=self.proj.device)
        u_t[..., self.triu[1], self.triu[0]] = self.uvec
        z1 = x1 @ u_t
        z2 = x2 @ u_t
        return postprocess_rbf(self.covar_dist(z1, z2, square_dist=True, diag=diag, **params))
