"""The linter's copy of ``torch.Tensor``'s public names matches the installed torch."""

import pytest

from torchcheck.lint.tensor_namespace import TENSOR_NAMESPACE

torch = pytest.importorskip("torch")


def test_every_public_tensor_name_is_known():
    missing = {name for name in dir(torch.Tensor) if not name.startswith("_")} - TENSOR_NAMESPACE
    assert not missing, f"add to lint/tensor_namespace.py: {sorted(missing)}"


def test_graph_and_batch_fields_are_not_tensor_names():
    assert {"number_of_nodes", "edge_index", "input_ids", "batch_size"}.isdisjoint(TENSOR_NAMESPACE)
    assert {"shape", "to", "size", "grad", "detach"} <= TENSOR_NAMESPACE
