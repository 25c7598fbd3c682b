import torch


class ConditionalFlowMatcher:
    """Independent-coupling CFM: straight paths between noise x0 and data x1."""

    def __init__(self, sigma: float = 0.0):
        self.sigma = sigma

    def sample_location_and_conditional_flow(self, x0, x1):
        t = torch.rand(x0.shape[0], device=x0.device, dtype=x0.dtype)
        t_ = t.view(-1, *([1] * (x0.dim() - 1)))
        xt = t_ * x1 + (1 - t_) * x0
        if self.sigma > 0:
            xt = xt + self.sigma * torch.randn_like(xt)
        ut = x1 - x0
        return t, xt, ut


class ExactOptimalTransportConditionalFlowMatcher(ConditionalFlowMatcher):
    def sample_location_and_conditional_flow(self, x0, x1):
        # pair each noise sample with its nearest data sample (stand-in for the minibatch OT plan)
        cost = torch.cdist(x0.flatten(1), x1.flatten(1))
        x1 = x1[cost.argmin(dim=1)]
        return super().sample_location_and_conditional_flow(x0, x1)


class TargetConditionalFlowMatcher(ConditionalFlowMatcher):
    pass


class VariancePreservingConditionalFlowMatcher(ConditionalFlowMatcher):
    pass
