import abc

import torch
from torch import nn
from torch.autograd import Variable


class ContinualLearner(nn.Module, metaclass=abc.ABCMeta):
    """Adds EWC and SI regularisation terms to a classifier subclass."""

    def __init__(self):
        super().__init__()
        self.mask_dict = None
        self.si_c = 0
        self.epsilon = 0.1
        self.ewc_lambda = 0
        self.gamma = 1.0
        self.online = True
        self.EWC_task_count = 0

    def _is_on_cuda(self):
        return next(self.parameters()).is_cuda

    @abc.abstractmethod
    def forward(self, x):
        pass

    def ewc_loss(self, cuda=False):
        """Quadratic penalty pulling each parameter towards its value after the previous tasks."""
        if self.EWC_task_count > 0:
            losses = []
            for task in range(1, self.EWC_task_count + 1):
                suffix = "" if self.online else task
                for n, p in self.named_parameters():
                    if p.requires_grad:
                        n = n.replace(".", "__")
                        mean = getattr(self, "{}_EWC_prev_task{}".format(n, suffix))
                        fisher = getattr(self, "{}_EWC_estimated_fisher{}".format(n, suffix))
                        fisher = self.gamma * fisher if self.online else fisher
                        losses.append((fisher * (p - mean) ** 2).sum())
            return 0.5 * sum(losses)
        return Variable(torch.zeros(1)).cuda() if cuda else Variable(torch.zeros(1))

    def update_omega(self, W, epsilon):
        for n, p in self.named_parameters():
            if p.requires_grad:
                n = n.replace(".", "__")
                p_prev = getattr(self, "{}_SI_prev_task".format(n))
                p_current = p.detach().clone()
                omega_add = W[n] / ((p_current - p_prev) ** 2 + epsilon)
                omega = getattr(self, "{}_SI_omega".format(n), torch.zeros_like(p_current))
                self.register_buffer("{}_SI_prev_task".format(n), p_current)
                self.register_buffer("{}_SI_omega".format(n), omega + omega_add)

    def surrogate_loss(self, cuda=False):
        """Synaptic-intelligence penalty, zero until a first task has been consolidated."""
        try:
            losses = []
            for n, p in self.named_parameters():
                if p.requires_grad:
                    n = n.replace(".", "__")
                    prev_values = getattr(self, "{}_SI_prev_task".format(n))
                    omega = getattr(self, "{}_SI_omega".format(n))
                    losses.append((omega * (p - prev_values) ** 2).sum())
            return sum(losses)
        except AttributeError:
            return Variable(torch.zeros(1)).cuda() if cuda else Variable(torch.zeros(1))
