"""TCK116, TCK117 and TCK119 against PyTorch itself: the activation-checkpointing code each rule
reports misbehaves when run on the CPU (the recompute in backward runs the region a second
time), and the correction lints clean and behaves as the same model without checkpointing.

Each snippet is linted exactly as it is run; the test drives it from outside.
"""

from __future__ import annotations

import pytest

from tests.rules.examples import codes_reported, run_snippet

torch = pytest.importorskip("torch")


# ---------------------------------------------------------------- TCK116 checkpoint-rng-not-preserved
RNG_NOT_PRESERVED = """
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.drop = nn.Dropout(0.5)

    def forward(self, x):
        return self.drop(torch.tanh(self.proj(x)))

class Model(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.block = Block(dim)
        self.checkpointing = True

    def forward(self, x):
        if self.checkpointing:
            return checkpoint(self.block, x, use_reentrant=False, preserve_rng_state=False)
        return self.block(x)
"""
RNG_PRESERVED = RNG_NOT_PRESERVED.replace(", preserve_rng_state=False", "")


def _gradient(namespace: dict[str, object], *, checkpointing: bool) -> torch.Tensor:
    torch.manual_seed(0)
    model = namespace["Model"](16)
    model.checkpointing = checkpointing
    x = torch.randn(64, 16)
    torch.manual_seed(1)  # the same dropout masks for both runs' forward
    model(x).pow(2).sum().backward()
    return model.block.proj.weight.grad


def test_rng_not_preserved_around_dropout_is_reported_and_gives_other_gradients() -> None:
    assert codes_reported(RNG_NOT_PRESERVED, "TCK116") == ["TCK116"]
    namespace = run_snippet(RNG_NOT_PRESERVED)
    assert not torch.allclose(_gradient(namespace, checkpointing=True), _gradient(namespace, checkpointing=False))


def test_rng_preserved_is_silent_and_matches_the_run_without_checkpointing() -> None:
    assert codes_reported(RNG_PRESERVED, "TCK116") == []
    namespace = run_snippet(RNG_PRESERVED)
    torch.testing.assert_close(_gradient(namespace, checkpointing=True), _gradient(namespace, checkpointing=False))


# ---------------------------------------------------------------- TCK117 state-mutated-in-checkpointed-region
LOAD_UPDATED_IN_REGION = """
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

class Router(nn.Module):
    def __init__(self, dim, experts):
        super().__init__()
        self.gate = nn.Linear(dim, experts)
        self.register_buffer("expert_load", torch.zeros(experts))

    def forward(self, x):
        scores = self.gate(x).softmax(-1)
        self.expert_load += scores.sum(0).detach()
        return torch.tanh(scores)

class Layer(nn.Module):
    def __init__(self, dim, experts):
        super().__init__()
        self.router = Router(dim, experts)

    def forward(self, x):
        return checkpoint(self.router, x, use_reentrant=False)
"""
LOAD_UPDATED_AFTER_REGION = """
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

class Router(nn.Module):
    def __init__(self, dim, experts):
        super().__init__()
        self.gate = nn.Linear(dim, experts)
        self.register_buffer("expert_load", torch.zeros(experts))

    def forward(self, x):
        return self.gate(x).softmax(-1)

    def expert(self, scores):
        return torch.tanh(scores)

class Layer(nn.Module):
    def __init__(self, dim, experts):
        super().__init__()
        self.router = Router(dim, experts)

    def forward(self, x):
        scores = checkpoint(self.router, x, use_reentrant=False)
        self.router.expert_load += scores.sum(0).detach()
        return self.router.expert(scores)
"""


def _load_after_one_step(namespace: dict[str, object]) -> tuple[torch.Tensor, torch.Tensor]:
    """The expert load the layer counted over one training step, and the true one. The
    update sits before the region's last saved tensor (`tanh`'s output), so non-reentrant
    checkpointing's early stop does not end the recompute before it."""
    torch.manual_seed(0)
    layer = namespace["Layer"](8, 4)
    x = torch.randn(32, 8, requires_grad=True)
    layer(x).pow(2).sum().backward()
    with torch.no_grad():
        true_load = layer.router.gate(x).softmax(-1).sum(0)
    return layer.router.expert_load, true_load


def test_load_counted_inside_the_region_is_reported_and_counts_every_token_twice() -> None:
    assert codes_reported(LOAD_UPDATED_IN_REGION, "TCK117") == ["TCK117"]
    counted, true_load = _load_after_one_step(run_snippet(LOAD_UPDATED_IN_REGION))
    torch.testing.assert_close(counted, 2 * true_load)


def test_load_counted_after_the_region_is_silent_and_counts_once() -> None:
    assert codes_reported(LOAD_UPDATED_AFTER_REGION, "TCK117") == []
    counted, true_load = _load_after_one_step(run_snippet(LOAD_UPDATED_AFTER_REGION))
    torch.testing.assert_close(counted, true_load)


# ---------------------------------------------------------------- TCK119 batchnorm-in-checkpointed-region
NORM_IN_REGION = """
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

class ConvBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)
        self.bn = nn.BatchNorm2d(channels)

    def forward(self, x):
        return torch.relu(self.bn(self.conv(x)))

class Net(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.block = ConvBlock(channels)
        self.checkpointing = True

    def forward(self, x):
        if self.checkpointing:
            return checkpoint(self.block, x, use_reentrant=False)
        return self.block(x)
"""
NORM_OUTSIDE_REGION = """
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

class Net(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)
        self.bn = nn.BatchNorm2d(channels)
        self.checkpointing = True

    def forward(self, x):
        h = checkpoint(self.conv, x, use_reentrant=False) if self.checkpointing else self.conv(x)
        return torch.relu(self.bn(h))
"""


def _norm(net: torch.nn.Module) -> torch.nn.BatchNorm2d:
    return next(module for module in net.modules() if isinstance(module, torch.nn.BatchNorm2d))


def _statistics_after_one_step(namespace: dict[str, object], *, checkpointing: bool) -> tuple[torch.Tensor, int]:
    torch.manual_seed(0)
    net = namespace["Net"](4)
    net.checkpointing = checkpointing
    x = torch.randn(8, 4, 6, 6, requires_grad=True)
    net(x).sum().backward()
    return _norm(net).running_mean.clone(), int(_norm(net).num_batches_tracked)


def test_batchnorm_in_the_region_is_reported_and_updates_its_statistics_twice() -> None:
    assert codes_reported(NORM_IN_REGION, "TCK119") == ["TCK119"]
    namespace = run_snippet(NORM_IN_REGION)
    mean, batches = _statistics_after_one_step(namespace, checkpointing=True)
    reference, reference_batches = _statistics_after_one_step(namespace, checkpointing=False)
    assert (batches, reference_batches) == (2, 1)
    assert not torch.allclose(mean, reference)


def test_batchnorm_outside_the_region_is_silent_and_updates_once() -> None:
    assert codes_reported(NORM_OUTSIDE_REGION, "TCK119") == []
    namespace = run_snippet(NORM_OUTSIDE_REGION)
    mean, batches = _statistics_after_one_step(namespace, checkpointing=True)
    reference, reference_batches = _statistics_after_one_step(namespace, checkpointing=False)
    assert batches == reference_batches == 1
    torch.testing.assert_close(mean, reference)
