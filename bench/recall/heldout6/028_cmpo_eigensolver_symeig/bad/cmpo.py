import torch


class CMPS:
    def __init__(self, Q, R):
        self.Q = Q
        self.R = R


def eigensolver(H):
    w, v = torch.symeig(H, eigenvectors=True)  # expect: TCK901
    return w, v


def log_partition(psi, Tmat, beta):
    H = torch.kron(psi.Q, torch.eye(Tmat.shape[0])) + torch.kron(torch.eye(psi.Q.shape[0]), Tmat)
    H = 0.5 * (H + H.t())
    w, _ = eigensolver(H)
    return torch.logsumexp(-beta * w, dim=0) / beta
