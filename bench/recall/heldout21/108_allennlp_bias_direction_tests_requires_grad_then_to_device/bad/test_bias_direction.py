import math

import pytest
import torch

from bias_direction import ConfigurationError, PairedPCABiasDirection, PCABiasDirection, TwoMeansBiasDirection
from testing import multi_device


class PCABiasDirectionTest:
    def test_pca_invalid_dims(self):
        with pytest.raises(ConfigurationError):
            PCABiasDirection()(torch.zeros(2))

    @multi_device
    def test_pca_without_grad(self, device: str):
        seed_embeddings = torch.eye(2).to(device)
        const = 1 / math.sqrt(2)
        expected = torch.tensor([const, -const]).to(device)
        k = expected / PCABiasDirection()(seed_embeddings)
        assert k[0].item() == pytest.approx(k[1].item())
        assert seed_embeddings.grad is None

    @multi_device
    def test_pca_with_grad(self, device: str):
        # add noise to avoid a singular matrix in the low-rank solve
        torch.manual_seed(0)
        seed_embeddings = torch.eye(2) + (1 - torch.eye(2)) * 1e-1
        seed_embeddings = seed_embeddings.requires_grad_().to(device)  # expect: TCK108
        assert seed_embeddings.grad is None

        pca = PCABiasDirection(requires_grad=True)
        pca(seed_embeddings).sum().backward()
        assert seed_embeddings.grad is not None


class PairedPCABiasDirectionTest:
    @multi_device
    def test_paired_pca_with_grad(self, device: str):
        torch.manual_seed(0)
        seed_embeddings1 = torch.tensor([[1.0, 1.0], [1.0, 1.0]])
        seed_embeddings2 = (1 - torch.eye(2)) * 9e-1
        seed_embeddings1 = seed_embeddings1.requires_grad_().to(device)  # expect: TCK108
        seed_embeddings2 = seed_embeddings2.requires_grad_().to(device)  # expect: TCK108
        assert seed_embeddings1.grad is None
        assert seed_embeddings2.grad is None

        paired_pca = PairedPCABiasDirection(requires_grad=True)
        paired_pca(seed_embeddings1, seed_embeddings2).sum().backward()
        assert seed_embeddings1.grad is not None
        assert seed_embeddings2.grad is not None


class TwoMeansBiasDirectionTest:
    @multi_device
    def test_two_means_with_grad(self, device: str):
        seed_embeddings1 = torch.eye(2)
        seed_embeddings2 = 1 - torch.eye(2)
        seed_embeddings1 = seed_embeddings1.requires_grad_().to(device)  # expect: TCK108
        seed_embeddings2 = seed_embeddings2.requires_grad_().to(device)  # expect: TCK108
        assert seed_embeddings1.grad is None
        assert seed_embeddings2.grad is None

        two_means = TwoMeansBiasDirection(requires_grad=True)
        two_means(seed_embeddings1, seed_embeddings2).sum().backward()
        assert seed_embeddings1.grad is not None
        assert seed_embeddings2.grad is not None
