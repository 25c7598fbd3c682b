"""Parameters kept in Python containers are named by the checks that cannot see them."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from torchcheck import CheckFailed, assert_gradients_flow
from torchcheck.checks._registration import hook_recomputed_attributes, unregistered_parameters


class ExpertsInADict(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.experts = {"a": nn.Linear(4, 4), "b": nn.Linear(4, 4)}  # bug: not an nn.ModuleDict
        self.scales = [nn.Parameter(torch.ones(4))]  # bug: not an nn.ParameterList
        self.router = nn.Linear(4, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        weights = self.router(x).softmax(-1)
        mixed = weights[:, :1] * self.experts["a"](x) + weights[:, 1:] * self.experts["b"](x)
        return mixed * self.scales[0]


def test_gradients_flow_names_parameters_it_cannot_see_because_they_are_not_registered() -> None:
    with pytest.raises(CheckFailed) as failure:
        assert_gradients_flow(ExpertsInADict(), torch.randn(3, 4))
    message = str(failure.value)
    assert message.startswith(
        "assert_gradients_flow: 5 parameters (44 elements) are not registered with ExpertsInADict: "
        "'experts' (4 in a dict), 'scales' (1 in a list). A Python dict or list hides them"
    )
    assert "an optimizer built from it never trains them" in message


def test_registered_modules_listed_again_for_convenience_are_not_reported() -> None:
    model = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2))
    model.stages = [model[0], model[1]]
    assert unregistered_parameters(model) is None


def test_a_frozen_unregistered_teacher_is_reported_only_when_asked_for_every_parameter() -> None:
    model = nn.Linear(2, 2)
    model.teacher = [nn.Linear(2, 2).requires_grad_(False)]
    assert unregistered_parameters(model) is None
    found = unregistered_parameters(model, trainable_only=False)
    assert found is not None and list(found.places) == ["teacher"]


def test_the_weight_the_old_spectral_norm_hook_recomputes_is_derived() -> None:
    model = nn.Sequential(nn.utils.spectral_norm(nn.Linear(2, 2)), nn.Linear(2, 2))
    assert hook_recomputed_attributes(model) == {"0.weight"}
