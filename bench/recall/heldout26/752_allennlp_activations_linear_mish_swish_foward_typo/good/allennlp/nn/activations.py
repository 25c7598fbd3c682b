"""
Element-wise activation functions that configuration files can name ("relu", "mish", ...).

Most names map straight to a PyTorch activation module; the few PyTorch does not ship are
defined here as small `Activation` subclasses.
"""
import torch

from allennlp.common import Registrable


class Activation(torch.nn.Module, Registrable):
    """Common type of the registered activations, so they can be built by name."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError


# the PyTorch modules are added to the registry directly, without a decorator
Registrable._registry[Activation] = {
    "relu": (torch.nn.ReLU, None),
    "elu": (torch.nn.ELU, None),
    "gelu": (torch.nn.GELU, None),
    "leaky_relu": (torch.nn.LeakyReLU, None),
    "sigmoid": (torch.nn.Sigmoid, None),
    "tanh": (torch.nn.Tanh, None),
    "softplus": (torch.nn.Softplus, None),
    "selu": (torch.nn.SELU, None),
}


@Activation.register("linear")
class LinearActivation(Activation):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x


@Activation.register("mish")
class MishActivation(Activation):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.tanh(torch.nn.functional.softplus(x))


@Activation.register("swish")
class SwishActivation(Activation):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.sigmoid(x)
