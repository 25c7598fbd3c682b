"""The structural comparison and the model-call helper every check builds on."""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

from torchcheck.checks._compare import compare_structures, detach_to_cpu, iter_tensors, map_tensors
from torchcheck.checks._inputs import ModelInputs, call_model, instantiate, is_model_factory, strip_compiled

Pair = namedtuple("Pair", "first second")


@dataclass
class Record:
    values: torch.Tensor
    count: int


class Layer:
    """Like a cache layer: a plain object holding tensors, without its own ``__eq__``."""

    def __init__(self, keys: torch.Tensor, values: torch.Tensor) -> None:
        self.keys = keys
        self.values = values
        self.is_initialized = True


class Cache:
    def __init__(self, layers: list[Layer]) -> None:
        self.layers = layers
        self.owner = self  # a cycle must not recurse forever


def _cache(shift: float = 0.0) -> Cache:
    keys = torch.arange(6.0).reshape(1, 2, 3)
    return Cache([Layer(keys, keys * 2), Layer(keys + shift, keys)])


def test_equal_objects_that_hold_tensors_compare_equal_by_their_attributes() -> None:
    assert compare_structures(_cache(), _cache()).equal


def test_a_difference_deep_inside_an_object_is_named_by_its_attribute_path() -> None:
    mismatch = compare_structures({"past": _cache(shift=0.5)}, {"past": _cache()}).mismatch
    assert mismatch is not None
    assert mismatch.path == "output['past'].layers[1].keys"
    assert "Mismatched elements: 6 / 6 (100.0%)" in mismatch.render()
    assert "Greatest absolute difference: 0.5 at index (0, 0, 0)" in mismatch.render()


def test_namedtuples_and_dataclasses_are_walked_field_by_field() -> None:
    actual = Pair(torch.ones(2), Record(torch.zeros(3), 3))
    expected = Pair(torch.ones(2), Record(torch.zeros(3), 4))
    mismatch = compare_structures(actual, expected).mismatch
    assert mismatch is not None and mismatch.path == "output.second.count"
    assert "3 != 4" in mismatch.render()


def test_strings_none_and_numbers_are_compared_by_value() -> None:
    assert compare_structures(["a", None, 1.0], ["a", None, 1.0]).equal
    mismatch = compare_structures(["a", None], ["b", None]).mismatch
    assert mismatch is not None and mismatch.path == "output[0]"


def test_numpy_arrays_are_compared_like_tensors() -> None:
    assert compare_structures({"a": np.ones(3)}, {"a": np.ones(3)}).equal
    mismatch = compare_structures({"a": np.ones(3)}, {"a": np.zeros(3)}).mismatch
    assert mismatch is not None and "Mismatched elements: 3 / 3" in mismatch.render()


def test_a_leaf_that_cannot_be_compared_is_noted_not_failed() -> None:
    comparison = compare_structures({"g": torch.Generator(), "x": 1}, {"g": torch.Generator(), "x": 1})
    assert comparison.equal
    assert comparison.uncompared == ("output['g'] (Generator)",)
    assert "output['g'] (Generator)" in comparison.note()


def test_tolerances_default_to_those_of_assert_close_per_dtype() -> None:
    close = torch.tensor([1.0 + 1e-7])
    assert compare_structures(close, torch.tensor([1.0])).equal
    assert not compare_structures(close, torch.tensor([1.0]), rtol=0, atol=0).equal


def test_meta_tensors_compare_by_shape_and_dtype_only() -> None:
    meta = torch.empty(2, 3, device="meta")
    assert compare_structures(meta, torch.empty(2, 3, device="meta")).equal
    mismatch = compare_structures(meta, torch.empty(2, 4, device="meta")).mismatch
    assert mismatch is not None and "Shapes differ: (2, 3) != (2, 4)" in mismatch.render()


def test_map_tensors_keeps_the_structure_and_the_aliasing_of_objects() -> None:
    cache = _cache()
    shapes = map_tensors(cache, lambda t: t.shape)
    assert isinstance(shapes, Cache) and shapes.owner is shapes
    assert shapes.layers[0].keys == torch.Size([1, 2, 3])
    assert cache.layers[0].keys.shape == torch.Size([1, 2, 3])  # the original is untouched


def test_detach_to_cpu_records_a_copy_that_later_updates_cannot_change() -> None:
    live = {"cache": _cache()}
    recorded = detach_to_cpu(live)
    live["cache"].layers[0].keys.add_(1)
    assert not compare_structures(live, recorded).equal


def test_iter_tensors_names_every_tensor_once() -> None:
    paths = [path for path, _ in iter_tensors(_cache())]
    assert paths == [
        "output.layers[0].keys",
        "output.layers[0].values",
        "output.layers[1].keys",
        "output.layers[1].values",
    ]


# ------------------------------------------------------------------ model inputs


class KeywordModel(nn.Module):
    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor | None = None) -> torch.Tensor:
        return input_ids * (1 if attention_mask is None else attention_mask)


class BatchDictModel(nn.Module):
    def forward(self, batch: dict[str, Any]) -> torch.Tensor:
        return batch["x"] + 1


def test_a_single_dict_input_is_passed_as_keyword_arguments() -> None:
    inputs = {"input_ids": torch.ones(2, 3), "attention_mask": torch.zeros(2, 3)}
    assert call_model(KeywordModel(), (inputs,)).sum() == 0


def test_a_model_that_takes_the_dict_itself_gets_it_positionally() -> None:
    assert call_model(BatchDictModel(), ({"x": torch.zeros(2)},)).tolist() == [1.0, 1.0]


def test_positional_inputs_stay_positional_and_are_labelled_by_index() -> None:
    inputs = ModelInputs.from_inputs((torch.ones(1), torch.zeros(1)), KeywordModel())
    assert [label for label, _ in inputs.labelled()] == ["input[0]", "input[1]"]
    keyword = ModelInputs.from_inputs(({"input_ids": torch.ones(1)},), KeywordModel())
    assert [label for label, _ in keyword.labelled()] == ["input['input_ids']"]


def test_factories_and_instances_both_give_a_model_the_check_owns() -> None:
    original = nn.Linear(2, 2)
    assert is_model_factory(KeywordModel) and is_model_factory(lambda: nn.Linear(2, 2))
    assert not is_model_factory(original) and not is_model_factory(lambda x: x)
    copy = instantiate(original)
    assert copy is not original and torch.equal(copy.weight, original.weight)


def test_strip_compiled_returns_the_plain_module_inside_torch_compile() -> None:
    inner = nn.Sequential(nn.Linear(2, 2))
    outer = nn.Sequential(torch.compile(inner, backend="eager"))
    plain = strip_compiled(torch.compile(outer, backend="eager"))
    assert plain is outer and plain[0] is inner
