import torch


class ISTA:
    def __init__(self, n_iter=100, sparsity_penalty=0.2, stop_early=False):
        self.n_iter = n_iter
        self.sparsity_penalty = sparsity_penalty
        self.stop_early = stop_early

    def infer(self, data, dictionary):
        batch_size = data.shape[0]
        n_basis = dictionary.shape[1]
        lipschitz_constant = torch.linalg.eigvalsh(torch.mm(dictionary.T, dictionary))[-1]
        stepsize = 1.0 / lipschitz_constant
        coefficients = torch.zeros((batch_size, n_basis), device=dictionary.device)
        for _ in range(self.n_iter):
            residual = data - coefficients @ dictionary.T
            coefficients = coefficients + stepsize * residual @ dictionary
            coefficients = torch.sign(coefficients) * torch.relu(coefficients.abs() - stepsize * self.sparsity_penalty)
        return coefficients
