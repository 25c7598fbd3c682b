import torch


def compute_intrinsic_dimensionality(cov: torch.Tensor, thresh: float = 0.99) -> int:
    eig_vals, eigen_space = torch.linalg.eigh(cov, UPLO="U")
    eig_vals, idx = eig_vals.sort(descending=True)
    eigen_space = eigen_space[:, idx]
    eig_vals[eig_vals < 0] = 0
    percentages = eig_vals.cumsum(0) / eig_vals.sum()
    eigen_space = eigen_space[:, percentages < thresh]
    if eigen_space.shape[1] == 0:
        eigen_space = eigen_space[:, :1]
    elif thresh - percentages[percentages < thresh][-1] > 0.02:
        eigen_space = eigen_space[:, : eigen_space.shape[1] + 1]
    return eigen_space.shape[1]


def compute_saturation(cov: torch.Tensor, thresh: float = 0.99) -> float:
    intrinsic = compute_intrinsic_dimensionality(cov, thresh)
    return intrinsic / cov.shape[0]


def compute_diag_trace(cov: torch.Tensor) -> float:
    eig_vals, eigen_space = torch.linalg.eigh(cov, UPLO="U")
    eig_vals[eig_vals < 0] = 0
    return eig_vals.sum().item()
