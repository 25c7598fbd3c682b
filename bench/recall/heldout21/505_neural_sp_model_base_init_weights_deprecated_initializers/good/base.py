"""Base class for all models."""
import logging

import torch
import torch.nn as nn
import torch.optim as optim

logger = logging.getLogger("training")

OPTIMIZER_CLS_NAMES = {
    "sgd": optim.SGD,
    "adam": optim.Adam,
    "adadelta": optim.Adadelta,
    "rmsprop": optim.RMSprop,
}


class ModelBase(nn.Module):
    """A base class for all models. All models have to inherit this class."""

    def init_weights(self, parameter_init, distribution, keys=[None], ignore_keys=[None]):
        """Initialize the parameters whose names match `keys` and not `ignore_keys`.

        Args:
            parameter_init (float): range (uniform), std (normal) or value (constant)
            distribution (str): uniform or normal or orthogonal or constant
        """
        for name, param in self.named_parameters():
            if keys != [None] and len([k for k in keys if k in name]) == 0:
                continue
            if ignore_keys != [None] and len([k for k in ignore_keys if k in name]) > 0:
                continue

            if distribution == "uniform":
                nn.init.uniform_(
                    param.data, a=-parameter_init, b=parameter_init)
            elif distribution == "normal":
                assert parameter_init > 0
                torch.nn.init.normal_(param.data, mean=0, std=parameter_init)
            elif distribution == "orthogonal":
                if param.dim() >= 2:
                    torch.nn.init.orthogonal_(param.data, gain=1)
            elif distribution == "constant":
                torch.nn.init.constant_(param.data, val=parameter_init)
            else:
                raise NotImplementedError(distribution)

    def init_forget_gate_bias_with_one(self):
        for name, param in self.named_parameters():
            if "lstm" in name and "bias" in name:
                n = param.size(0)
                param.data[n // 4:n // 2].fill_(1.0)

    def set_optimizer(self, optimizer, learning_rate, weight_decay=0.0):
        cls = OPTIMIZER_CLS_NAMES[optimizer]
        self.optimizer = cls(self.parameters(), lr=learning_rate, weight_decay=weight_decay)
        return self.optimizer
