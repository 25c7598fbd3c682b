import torch


class MixtureDistribution(torch.distributions.Distribution):
    """Per-pixel mixture of Gaussians over the templates rendered by the part capsules."""

    arg_constraints = {}

    def __init__(self, mixing_logits: torch.Tensor, means: torch.Tensor, std: float = 1.0,
                 distribution=torch.distributions.Normal):
        """
        mixing_logits, means: (batch, num_templates, C, H, W)
        """
        super().__init__(validate_args=False)
        self._mixing_logits = mixing_logits
        self._means = means
        self._components = distribution(loc=means, scale=std)

    @property
    def mixing_log_prob(self) -> torch.Tensor:
        return self._mixing_logits - torch.logsumexp(self._mixing_logits, dim=1, keepdim=True)

    @property
    def mixing_prob(self) -> torch.Tensor:
        return torch.softmax(self._mixing_logits, dim=1)

    def log_prob(self, value: torch.Tensor) -> torch.Tensor:
        """value: (batch, C, H, W) -> per-pixel log-likelihood (batch, H, W)."""
        y = value.unsqueeze(1)
        logits = self._components.log_prob(y)
        logits = logits.sum(dim=2) + self.mixing_log_prob.sum(dim=2)
        return torch.logsumexp(logits, dim=1)

    def mean(self) -> torch.Tensor:
        return (self._means * self.mixing_prob).sum(dim=1)
