"""TCK209 and TCK210 against PyTorch itself: the code each rule reports fails or silently
misbehaves when run on two CPU ranks (gloo), and the correction it asks for lints clean and works.

Each snippet is linted exactly as it is run on the ranks of ``@pytest.mark.distributed``.
"""

from __future__ import annotations

import pytest

from tests.rules.examples import codes_reported

torch = pytest.importorskip("torch")
dist = pytest.importorskip("torch.distributed")

# ---------------------------------------------------------------- TCK210 ddp-bypassed-through-module
_TRAIN = """
import torch
from torch.nn.parallel import DistributedDataParallel as DDP

def train(net, batches):
    model = DDP(net)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x in batches:
        loss = {forward}(x).pow(2).mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
"""
THROUGH_MODULE = _TRAIN.format(forward="model.module")
THROUGH_WRAPPER = _TRAIN.format(forward="model")

# ---------------------------------------------------------------- TCK209 ddp-state-dict-prefixed
_SAVE_AND_RESUME = """
import torch
from torch.nn.parallel import DistributedDataParallel as DDP

def save_then_resume(path):
    model = DDP(torch.nn.Linear(4, 2))
    torch.save({state}, path)
    net = torch.nn.Linear(4, 2)
    net.load_state_dict(torch.load(path, weights_only=True))
    return net
"""
WRAPPER_STATE = _SAVE_AND_RESUME.format(state="model.state_dict()")
MODULE_STATE = _SAVE_AND_RESUME.format(state="model.module.state_dict()")


def _define(source: str, name: str):
    namespace: dict[str, object] = {}
    exec(compile(source, "example.py", "exec"), namespace)  # noqa: S102 - test snippets
    return namespace[name]


def _weights_after_training(source: str, rank: int) -> list[torch.Tensor]:
    """Train the same initial model on each rank's own batches; every rank's final weights."""
    torch.manual_seed(0)
    net = torch.nn.Linear(4, 1)
    generator = torch.Generator().manual_seed(rank + 1)
    batches = [torch.randn(8, 4, generator=generator) for _ in range(3)]
    _define(source, "train")(net, batches)
    weights = [torch.empty_like(net.weight) for _ in range(dist.get_world_size())]
    dist.all_gather(weights, net.weight.detach().contiguous())
    return weights


def test_the_bypass_through_module_is_reported_and_the_call_through_the_wrapper_is_not() -> None:
    assert codes_reported(THROUGH_MODULE, "TCK210") == ["TCK210"]
    assert codes_reported(THROUGH_WRAPPER, "TCK210") == []


@pytest.mark.distributed(world_size=2)
def test_training_through_module_splits_the_ranks_and_through_the_wrapper_keeps_them_identical(rank: int) -> None:
    first, second = _weights_after_training(THROUGH_MODULE, rank)
    assert not torch.equal(first, second)
    first, second = _weights_after_training(THROUGH_WRAPPER, rank)
    assert torch.equal(first, second)


def test_the_wrapper_state_saved_for_a_bare_model_is_reported_and_the_module_state_is_not() -> None:
    assert codes_reported(WRAPPER_STATE, "TCK209") == ["TCK209"]
    assert codes_reported(MODULE_STATE, "TCK209") == []


@pytest.mark.distributed(world_size=2)
def test_the_wrapper_state_dict_fails_to_load_into_the_bare_model_and_the_module_state_dict_loads(rank: int, tmp_path) -> None:
    with pytest.raises(RuntimeError, match=r'Unexpected key\(s\) in state_dict: "module\.weight"'):
        _define(WRAPPER_STATE, "save_then_resume")(tmp_path / f"wrapper{rank}.pt")
    net = _define(MODULE_STATE, "save_then_resume")(tmp_path / f"module{rank}.pt")
    assert set(net.state_dict()) == {"weight", "bias"}
