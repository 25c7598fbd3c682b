"""Differentiable methods that compute the bias direction of a concept from seed word embeddings."""
import torch


class ConfigurationError(Exception):
    pass


class BiasDirection:
    def __init__(self, requires_grad: bool = False):
        self.requires_grad = requires_grad

    def _normalize_bias_direction(self, bias_direction: torch.Tensor):
        return bias_direction / torch.linalg.norm(bias_direction)


class PCABiasDirection(BiasDirection):
    def __call__(self, seed_embeddings: torch.Tensor):
        if seed_embeddings.ndim < 2:
            raise ConfigurationError("seed_embeddings must have at least two dimensions.")
        with torch.set_grad_enabled(self.requires_grad):
            _, _, V = torch.pca_lowrank(seed_embeddings, q=2)
            return self._normalize_bias_direction(V[:, 0])


class PairedPCABiasDirection(BiasDirection):
    def __call__(self, seed_embeddings1: torch.Tensor, seed_embeddings2: torch.Tensor):
        if seed_embeddings1.size() != seed_embeddings2.size():
            raise ConfigurationError("seed_embeddings1 and seed_embeddings2 must be the same size.")
        if seed_embeddings1.ndim < 2:
            raise ConfigurationError("seed embeddings must have at least two dimensions.")
        with torch.set_grad_enabled(self.requires_grad):
            paired = seed_embeddings1 - seed_embeddings2
            _, _, V = torch.pca_lowrank(paired, q=min(paired.size(0), paired.size(1)) - 1)
            return self._normalize_bias_direction(V[:, 0])


class TwoMeansBiasDirection(BiasDirection):
    def __call__(self, seed_embeddings1: torch.Tensor, seed_embeddings2: torch.Tensor):
        if seed_embeddings1.ndim < 2 or seed_embeddings2.ndim < 2:
            raise ConfigurationError("seed embeddings must have at least two dimensions.")
        if seed_embeddings1.size(-1) != seed_embeddings2.size(-1):
            raise ConfigurationError("seed embeddings must have the same dimensionality.")
        with torch.set_grad_enabled(self.requires_grad):
            mean1 = seed_embeddings1.flatten(end_dim=-2).mean(dim=0)
            mean2 = seed_embeddings2.flatten(end_dim=-2).mean(dim=0)
            return self._normalize_bias_direction(mean1 - mean2)
