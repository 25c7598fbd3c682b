import torch
from torch.linalg import eigh


def gram_eigh(gram_mat, threshold=1e-5):
    evals, evecs = eigh(gram_mat)
    keep = evals.abs() > threshold
    return evals[keep], evecs[:, keep]


def directional_curvatures(gram_mat, v_list):
    evals, evecs = gram_eigh(gram_mat)
    return evals, [evecs.t() @ v for v in v_list]
