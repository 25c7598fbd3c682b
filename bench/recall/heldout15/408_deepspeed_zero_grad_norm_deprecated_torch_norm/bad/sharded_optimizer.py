import math

import torch
import torch.distributed as dist

from compression import compress_with_error_feedback


class ShardedGradOptimizer:
    """Wraps an optimizer whose parameters are split across data-parallel ranks."""

    def __init__(self, optimizer, clip_grad=1.0, dp_group=None, compress_momentum=False):
        self.optimizer = optimizer
        self.clip_grad = clip_grad
        self.dp_group = dp_group
        self.compress_momentum = compress_momentum
        self.errors = {}

    def _local_grad_norm(self, grads, norm_type=2.0):
        norm_type = float(norm_type)
        if norm_type == math.inf:
            total = torch.stack([g.detach().abs().max().float() for g in grads]).max()
            dist.all_reduce(total, op=dist.ReduceOp.MAX, group=self.dp_group)
            return total
        norms = []
        for g in grads:
            norms.append(torch.norm(g.detach().double(), norm_type))  # expect: TCK903
        total = torch.stack(norms).pow(norm_type).sum().float()
        dist.all_reduce(total, op=dist.ReduceOp.SUM, group=self.dp_group)
        return total.pow(1.0 / norm_type)

    @staticmethod
    def _combine_group_norms(norm_groups, norm_type=2.0):
        return torch.norm(torch.stack(norm_groups), p=norm_type)  # expect: TCK903

    def step(self):
        norm_groups = []
        for group in self.optimizer.param_groups:
            grads = [p.grad for p in group["params"] if p.grad is not None]
            if grads:
                norm_groups.append(self._local_grad_norm(grads))
        total_norm = self._combine_group_norms(norm_groups)
        if not (torch.isinf(total_norm) or torch.isnan(total_norm)):
            coef = self.clip_grad / (total_norm + 1e-6)
            if coef < 1:
                for group in self.optimizer.param_groups:
                    for p in group["params"]:
                        if p.grad is not None:
                            p.grad.mul_(coef)
            self.optimizer.step()
        if self.compress_momentum:
            for group in self.optimizer.param_groups:
                for p in group["params"]:
                    state = self.optimizer.state.get(p, {})
                    if "exp_avg" in state:
                        err = self.errors.setdefault(p, torch.zeros_like(state["exp_avg"]))
                        compress_with_error_feedback(state["exp_avg"], err)
        scale = torch.linalg.norm(torch.stack(norm_groups)) if norm_groups else None
        return total_norm, scale

    def zero_grad(self, set_to_none=True):
        self.optimizer.zero_grad(set_to_none=set_to_none)
