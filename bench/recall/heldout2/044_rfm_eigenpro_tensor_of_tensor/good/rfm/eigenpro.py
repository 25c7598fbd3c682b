import torch


def setup_preconditioner(kmat, top_q, device):
    eigvals, eigvecs = torch.linalg.eigh(kmat)
    eigvals = torch.flip(eigvals, dims=[0])
    eigvecs = torch.flip(eigvecs, dims=[1])
    tail_eigval = eigvals[top_q]
    top_eigvals = eigvals[:top_q]
    tail_eigval_t = tail_eigval.to(dtype=torch.float, device=device)
    scale = (top_eigvals / tail_eigval_t).to(device)
    return eigvecs[:, :top_q].to(device), 1.0 - 1.0 / scale, tail_eigval_t
