"""Wave 4 sharding rules (TCK211, TCK212, TCK214) against PyTorch itself: the code each rule
reports misbehaves when run with FSDP2 on two CPU ranks (gloo), and the correction it asks for
lints clean and works.

Each snippet is linted exactly as it is run on the ranks of ``@pytest.mark.distributed``.
"""

from __future__ import annotations

import pytest

from tests.rules.examples import codes_reported

torch = pytest.importorskip("torch")
dist = pytest.importorskip("torch.distributed")

# ---------------------------------------------------------------- TCK211 optimizer-built-before-sharding
_TRAIN = """
import torch
from torch.distributed.fsdp import fully_shard

def train(model, batches):
{setup}
    for x in batches:
        model(x).pow(2).mean().backward()
        optimizer.step()
        optimizer.zero_grad()
"""
BUILT_BEFORE_SHARDING = _TRAIN.format(
    setup="""    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    fully_shard(model)"""
)
BUILT_AFTER_SHARDING = _TRAIN.format(
    setup="""    fully_shard(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)"""
)
BUILT_AFTER_A_FORWARD = _TRAIN.format(
    setup="""    fully_shard(model[0])
    fully_shard(model)
    with torch.no_grad():
        model(batches[0])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)"""
)
BUILT_BEFORE_THE_FIRST_FORWARD = _TRAIN.format(
    setup="""    fully_shard(model[0])
    fully_shard(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with torch.no_grad():
        model(batches[0])"""
)


def _define(source: str, name: str):
    namespace: dict[str, object] = {}
    exec(compile(source, "example.py", "exec"), namespace)  # noqa: S102 - test snippets
    return namespace[name]


def _full(parameter: torch.Tensor) -> torch.Tensor:
    """The whole value of a parameter, sharded (a DTensor) or not."""
    full = parameter.full_tensor() if hasattr(parameter, "full_tensor") else parameter
    return full.detach().clone()


def _updated_after_training(source: str) -> list[bool]:
    """For each parameter of a two-layer model trained by ``source``'s ``train``: did it change?"""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Linear(4, 1))
    initial = [parameter.detach().clone() for parameter in model.parameters()]
    batches = [torch.randn(8, 4) for _ in range(2)]
    _define(source, "train")(model, batches)
    return [not torch.equal(before, _full(after)) for before, after in zip(initial, model.parameters())]


def test_an_optimizer_built_before_sharding_or_after_a_forward_is_reported_and_the_corrections_are_not() -> None:
    assert codes_reported(BUILT_BEFORE_SHARDING, "TCK211") == ["TCK211"]
    assert codes_reported(BUILT_AFTER_A_FORWARD, "TCK211") == ["TCK211"]
    assert codes_reported(BUILT_AFTER_SHARDING, "TCK211") == []
    assert codes_reported(BUILT_BEFORE_THE_FIRST_FORWARD, "TCK211") == []


@pytest.mark.distributed(world_size=2)
def test_an_optimizer_built_before_fully_shard_updates_nothing_and_one_built_after_updates_everything(rank: int) -> None:
    assert _updated_after_training(BUILT_BEFORE_SHARDING) == [False, False, False, False]
    assert _updated_after_training(BUILT_AFTER_SHARDING) == [True, True, True, True]


@pytest.mark.distributed(world_size=2)
def test_an_optimizer_built_after_the_first_forward_never_updates_the_root_parameters(rank: int) -> None:
    assert _updated_after_training(BUILT_AFTER_A_FORWARD) == [True, True, False, False]
    assert _updated_after_training(BUILT_BEFORE_THE_FIRST_FORWARD) == [True, True, True, True]


# ---------------------------------------------------------------- TCK212 tied-weights-in-separate-shard-groups
_TIED_LM = """
import torch
from torch import nn
from torch.distributed.fsdp import fully_shard

class LM(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok_embeddings = nn.Embedding(16, 8)
        self.norm = nn.LayerNorm(8)
        self.output = nn.Linear(8, 16, bias=False)
        self.output.weight = self.tok_embeddings.weight

    def forward(self, tokens):
        return self.output(self.norm(self.tok_embeddings(tokens)))

def build():
    model = LM()
{grouping}
    fully_shard(model)
    return model
"""
SEPARATE_GROUPS = _TIED_LM.format(grouping="    fully_shard(model.tok_embeddings)\n    fully_shard(model.output)")
ONE_GROUP = _TIED_LM.format(grouping="    fully_shard([model.tok_embeddings, model.output])")


def test_tied_modules_in_separate_groups_are_reported_and_in_one_group_are_not() -> None:
    assert codes_reported(SEPARATE_GROUPS, "TCK212") == ["TCK212"]
    assert codes_reported(ONE_GROUP, "TCK212") == []


def _train_tied(source: str):
    """Build the tied model with ``source``'s grouping and train it for two steps."""
    torch.manual_seed(0)
    model = _define(source, "build")()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    tokens = torch.randint(0, 16, (4, 5))
    for _ in range(2):
        model(tokens).logsumexp(-1).mean().backward()
        optimizer.step()
        optimizer.zero_grad()
    return model


@pytest.mark.distributed(world_size=2)
def test_fsdp2_rejects_a_tie_split_across_groups_at_its_first_forward_and_keeps_it_in_one_group(rank: int) -> None:
    with pytest.raises(ValueError, match="shared with a parameter already managed by another FSDP group"):
        _train_tied(SEPARATE_GROUPS)
    model = _train_tied(ONE_GROUP)
    assert model.output.weight is model.tok_embeddings.weight


# ---------------------------------------------------------------- TCK214 ddp-no-sync-on-fully-sharded
_ACCUMULATE = """
import contextlib
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.distributed.fsdp import fully_shard

@contextlib.contextmanager
def maybe_no_sync(model, sync):
    if not sync and isinstance(model, DDP):
        with model.no_sync():
            yield
    else:
        yield

def accumulate(model, batches, accumulation_steps):
    fully_shard(model)
    for i, x in enumerate(batches):
        last = (i + 1) % accumulation_steps == 0
{backward}
"""
THROUGH_DDP_ONLY_HELPER = _ACCUMULATE.format(
    backward="""        with maybe_no_sync(model, last):
            model(x).pow(2).mean().backward()"""
)
DIRECT_NO_SYNC = _ACCUMULATE.format(
    backward="""        if last:
            model(x).pow(2).mean().backward()
        else:
            with model.no_sync():
                model(x).pow(2).mean().backward()"""
)
GRADIENT_SYNC_SWITCHED = _ACCUMULATE.format(
    backward="""        model.set_requires_gradient_sync(last)
        model(x).pow(2).mean().backward()"""
)


def _reduced_after_one_micro_batch(source: str) -> list[bool]:
    """Backpropagate the first of two micro-batches; for each parameter, whether its sharded
    gradient exists (FSDP2 reduce-scatters into it only when it synchronises)."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Linear(4, 1))
    _define(source, "accumulate")(model, [torch.randn(8, 4)], 2)
    return [parameter.grad is not None for parameter in model.parameters()]


def test_no_sync_on_a_fully_shard_model_is_reported_and_set_requires_gradient_sync_is_not() -> None:
    assert codes_reported(THROUGH_DDP_ONLY_HELPER, "TCK214") == ["TCK214"]
    assert codes_reported(DIRECT_NO_SYNC, "TCK214") == ["TCK214"]
    assert codes_reported(GRADIENT_SYNC_SWITCHED, "TCK214") == []


@pytest.mark.distributed(world_size=2)
def test_a_ddp_only_no_sync_helper_still_reduce_scatters_every_micro_batch_and_the_fsdp2_switch_defers_it(rank: int) -> None:
    assert _reduced_after_one_micro_batch(THROUGH_DDP_ONLY_HELPER) == [True, True, True, True]
    assert _reduced_after_one_micro_batch(GRADIENT_SYNC_SWITCHED) == [False, False, False, False]


@pytest.mark.distributed(world_size=2)
def test_no_sync_called_on_a_fully_shard_model_raises_attribute_error(rank: int) -> None:
    with pytest.raises(AttributeError, match="no_sync"):
        _reduced_after_one_micro_batch(DIRECT_NO_SYNC)
