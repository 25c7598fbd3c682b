import torch.nn as nn

from . import distributions


class NormalizingFlow(nn.Module):
    """Flow-based variational model: base q0, a stack of flows, a prior and an optional decoder."""

    def __init__(self, prior, decoder=None, q0=None, flows=None):
        super().__init__()
        self.prior = prior
        self.decoder = decoder
        self.q0 = q0 if q0 is not None else distributions.Dirac()
        self.flows = nn.ModuleList(flows if flows is not None else [])

    def forward(self, x, num_samples=1):
        z, log_q = self.q0(x, num_samples=num_samples)
        for flow in self.flows:
            z, log_det = flow(z)
            log_q = log_q - log_det
        log_p = self.prior.log_prob(z)
        if self.decoder is not None:
            log_p = log_p + self.decoder.log_p(x, z)
        return z, log_q, log_p
