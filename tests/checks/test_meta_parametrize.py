"""Parametrized weights (``torch.nn.utils.parametrize``) on the meta device: a
parametrization computes on values, which meta tensors lack, and the checks say so, with
the module, instead of a bare TypeError from inside torch."""

from __future__ import annotations

import pytest
import torch
from torch import nn
from torch.nn.utils import parametrizations

from torchcheck import CheckFailed, assert_meta_load, assert_meta_shapes, meta_shapes
from torchcheck.checks.meta import DataDependentOnMeta, ParametrizationOnMeta

X = torch.randn(2, 8)


class TallOrthogonal(nn.Module):
    """orthogonal() of a non-square weight: built on meta, its ``base`` buffer stays None."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = parametrizations.orthogonal(nn.Linear(8, 4))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x)


class SquareOrthogonal(nn.Module):
    """orthogonal() of a square weight: registering it on meta already needs values."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = parametrizations.orthogonal(nn.Linear(8, 8))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x)


def test_a_parametrization_left_without_its_values_is_named_with_its_module_and_cause() -> None:
    with pytest.raises(ParametrizationOnMeta) as failure:
        meta_shapes(TallOrthogonal, X)
    message = str(failure.value)
    assert message.startswith(
        "meta_shapes: the parametrization of 'fc.weight' in module 'fc.parametrizations.weight.0' (_Orthogonal) "
        "cannot run on the meta device: a parametrization computes the weight from tensor values"
    )
    assert "Its buffer `base` is None" in message
    assert "`aten::geqrf` has no meta kernel" in message
    assert "This is not a bug in TallOrthogonal." in message
    assert "Pass a model built on CPU instead of the factory" in message


def test_assert_meta_shapes_checks_a_parametrized_model_on_the_real_device_with_a_warning() -> None:
    with pytest.warns(RuntimeWarning, match="cannot run on the meta device"):
        assert_meta_shapes(TallOrthogonal, X, expected=(2, 4), device="cpu")


def test_a_parametrized_model_instance_is_copied_onto_meta_with_its_values_and_runs() -> None:
    assert meta_shapes(TallOrthogonal(), X) == torch.Size([2, 4])


def test_a_parametrization_that_needs_values_to_be_registered_is_named_at_construction() -> None:
    with pytest.raises(DataDependentOnMeta) as failure:
        meta_shapes(SquareOrthogonal, X)
    message = str(failure.value)
    assert message.startswith(
        'meta_shapes: building SquareOrthogonal under torch.device("meta") needs tensor values: `Tensor.item()`'
    )
    assert "A parametrization (torch.nn.utils.parametrize, e.g. orthogonal())" in message
    assert "in __init__" in message  # where in the model's code


def test_meta_load_says_why_a_parametrization_buffer_is_unexpected_and_its_advice_works() -> None:
    saved = TallOrthogonal().state_dict()
    with pytest.raises(CheckFailed) as failure:
        assert_meta_load(TallOrthogonal, saved, X)
    message = str(failure.value)
    assert "unexpected keys: fc.parametrizations.weight.0.base\n" in message
    assert "holds None for the buffers fc.parametrizations.weight.0.base" in message

    def with_placeholder() -> TallOrthogonal:
        model = TallOrthogonal()
        orthogonal = model.fc.parametrizations.weight[0]
        if orthogonal.base is None:
            orthogonal.base = torch.empty(saved["fc.parametrizations.weight.0.base"].shape)
        return model

    assert_meta_load(with_placeholder, saved, X)
