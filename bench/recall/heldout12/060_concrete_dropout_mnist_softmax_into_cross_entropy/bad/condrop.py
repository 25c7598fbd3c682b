import torch
from torch import nn


class ConcreteDropout(nn.Module):
    """Dropout whose rate is learned with a concrete relaxation (Gal et al. 2017)."""

    def __init__(self, weight_regulariser=1e-6, dropout_regulariser=1e-5, init_min=0.1, init_max=0.1):
        super().__init__()
        self.weight_regulariser = weight_regulariser
        self.dropout_regulariser = dropout_regulariser
        init_min = torch.log(torch.tensor(init_min)) - torch.log(1.0 - torch.tensor(init_min))
        init_max = torch.log(torch.tensor(init_max)) - torch.log(1.0 - torch.tensor(init_max))
        self.p_logit = nn.Parameter(torch.empty(1).uniform_(init_min.item(), init_max.item()))
        self.regularisation = 0.0

    @property
    def p(self):
        return torch.sigmoid(self.p_logit)

    def forward(self, x, layer):
        out = layer(self._concrete_dropout(x))
        sum_of_squares = sum(torch.sum(param ** 2) for param in layer.parameters())
        weights_reg = self.weight_regulariser * sum_of_squares / (1.0 - self.p)
        dropout_reg = self.p * torch.log(self.p) + (1.0 - self.p) * torch.log(1.0 - self.p)
        dropout_reg = self.dropout_regulariser * x[0].numel() * dropout_reg
        self.regularisation = weights_reg + dropout_reg
        return out

    def _concrete_dropout(self, x):
        eps, tmp = 1e-7, 0.1
        u = torch.rand_like(x)
        drop_prob = (torch.log(self.p + eps) - torch.log(1 - self.p + eps)
                     + torch.log(u + eps) - torch.log(1 - u + eps))
        drop_prob = torch.sigmoid(drop_prob / tmp)
        return x * (1 - drop_prob) / (1 - self.p)


def concrete_regulariser(cls):
    """Class decorator: adds regularisation() summing the terms of every ConcreteDropout layer."""

    def regularisation(self):
        return sum(m.regularisation for m in self.modules() if isinstance(m, ConcreteDropout))

    cls.regularisation = regularisation
    return cls
