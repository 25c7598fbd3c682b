"""SNPE-A: a mixture density network trained on proposal samples, corrected post hoc."""

from copy import deepcopy
from typing import Optional

import torch
from torch import Tensor, nn
from torch.distributions import Distribution, MultivariateNormal


def batched_mixture_mv(matrix: Tensor, vector: Tensor) -> Tensor:
    """Matrix-vector product for every batch entry and every mixture component."""
    return torch.einsum("bkij,bkj->bki", matrix, vector)


class SNPE_A:
    """Round-wise trainer; after the last round it wraps the MDN in `SNPE_A_MDN`."""

    def __init__(self, prior: Distribution, device: str = "cpu"):
        self._prior = prior
        self._device = device
        self._neural_net = None
        self._proposal_roundwise = []

    def append_simulations(self, theta: Tensor, x: Tensor, proposal=None):
        self._proposal_roundwise.append(proposal)
        return self

    def correct_for_proposal(self, density_estimator: Optional[nn.Module] = None) -> "SNPE_A_MDN":
        if density_estimator is None:
            density_estimator = deepcopy(self._neural_net)
            device = self._device
        else:
            device = str(next(density_estimator.parameters()).device)

        last = self._proposal_roundwise[-1] if self._proposal_roundwise else None
        proposal = self._prior if last is None or last is self._prior else last
        return SNPE_A_MDN(flow=density_estimator, proposal=proposal, prior=self._prior, device=device)


class SNPE_A_MDN(nn.Module):
    """Posterior MoG = MDN (proposal posterior) * prior / proposal, in closed form."""

    def __init__(self, flow: nn.Module, proposal, prior: Distribution, device: str):
        super().__init__()
        self._neural_net = flow
        self._prior = prior
        self._device = device
        if isinstance(proposal, MultivariateNormal):
            self._apply_correction = False
        else:
            self._apply_correction = True
            logits_pp, m_pp, prec_pp = proposal.posterior_estimator._posthoc_correction(proposal.default_x)
            self._logits_pp = logits_pp.detach()
            self._m_pp = m_pp.detach()
            self._prec_pp = prec_pp.detach()
        self._maybe_z_scored_prior = prior
        if isinstance(prior, MultivariateNormal):
            self.prec_m_prod_prior = torch.mv(prior.precision_matrix, prior.loc)

    def log_prob(self, inputs: Tensor, context: Tensor) -> Tensor:
        inputs, context = inputs.to(self._device), context.to(self._device)
        if not self._apply_correction:
            return self._neural_net.log_prob(inputs, context)
        logits_p, m_p, prec_p = self._posthoc_correction(context)
        return self._mog_log_prob(inputs, logits_p, m_p, prec_p)

    @staticmethod
    def _mog_log_prob(theta, logits, means, precisions):
        diff = theta[:, None, :] - means
        maha = torch.einsum("bki,bkij,bkj->bk", diff, precisions, diff)
        log_det = torch.logdet(precisions)
        dim = theta.shape[-1]
        comp = -0.5 * maha + 0.5 * log_det - 0.5 * dim * torch.log(torch.tensor(2 * torch.pi))
        return torch.logsumexp(torch.log_softmax(logits, dim=-1) + comp, dim=-1)

    def _posthoc_correction(self, x: Tensor):
        logits_d, m_d, prec_d = self._neural_net.mog_parameters(x)
        norm_logits_d = logits_d - torch.logsumexp(logits_d, dim=-1, keepdim=True)
        logits_pp = self._logits_pp.expand(x.shape[0], -1)
        m_pp = self._m_pp.expand(x.shape[0], -1, -1)
        prec_pp = self._prec_pp.expand(x.shape[0], -1, -1, -1)
        logits_p, m_p, prec_p, _ = self._proposal_posterior_transformation(
            logits_pp, m_pp, prec_pp, norm_logits_d, m_d, prec_d
        )
        return logits_p, m_p, prec_p

    def _proposal_posterior_transformation(self, logits_pp, means_pp, precisions_pp, logits_d, means_d, precisions_d):
        precisions_post, covariances_post = self._precisions_posterior(precisions_pp, precisions_d)
        means_post = self._means_posterior(covariances_post, means_pp, precisions_pp, means_d, precisions_d)
        num_d = precisions_d.shape[1]
        logits_post = logits_d.repeat(1, precisions_pp.shape[1]) - logits_pp.repeat_interleave(num_d, dim=1)
        return logits_post, means_post, precisions_post, covariances_post

    def _precisions_posterior(self, precisions_pp: Tensor, precisions_d: Tensor):
        num_comps_p = precisions_pp.shape[1]
        num_comps_d = precisions_d.shape[1]

        # both inputs must be positive definite
        for batches in precisions_pp:
            for pprior in batches:
                if not (torch.linalg.eigvalsh(pprior, UPLO="U") > 0).all():
                    raise AssertionError("The proposal's precision matrix is not positive definite.")
        for batches in precisions_d:
            for d in batches:
                if not (torch.linalg.eigvalsh(d, UPLO="U") > 0).all():
                    raise AssertionError("The density estimator's precision matrix is not positive definite.")

        precisions_p = precisions_d.repeat(1, num_comps_p, 1, 1) - precisions_pp.repeat_interleave(num_comps_d, dim=1)
        if isinstance(self._maybe_z_scored_prior, MultivariateNormal):
            precisions_p = precisions_p + self._maybe_z_scored_prior.precision_matrix

        # the difference of two precisions need not be positive definite
        for batches in precisions_p:
            for pp in batches:
                eig_pp = torch.symeig(pp, eigenvectors=False).eigenvalues  # expect: TCK901
                if not (eig_pp > 0).all():
                    raise AssertionError(
                        "A posterior precision matrix is not positive definite; try fewer "
                        "mixture components or another perturbation of the proposal."
                    )

        covariances_p = torch.inverse(precisions_p)
        return precisions_p, covariances_p

    def _means_posterior(self, covariances_p, means_pp, precisions_pp, means_d, precisions_d):
        num_pp = precisions_pp.shape[1]
        num_d = precisions_d.shape[1]
        prod_pp = batched_mixture_mv(precisions_pp, means_pp).repeat_interleave(num_d, dim=1)
        prod_d = batched_mixture_mv(precisions_d, means_d).repeat(1, num_pp, 1)
        summed = prod_d - prod_pp
        if isinstance(self._maybe_z_scored_prior, MultivariateNormal):
            summed = summed + self.prec_m_prod_prior
        return batched_mixture_mv(covariances_p, summed)
