from __future__ import annotations

import inspect
import itertools
from collections.abc import Callable

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import torchcheck as tc


class Block(nn.Module):
    def __init__(self, approximate: str, noise: bool, dropout: bool) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.approximate = approximate
        self.noise = noise
        self.dropout = dropout

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.fc(x)
        if self.noise:
            h = h + 1e-3 * torch.randn_like(h)  # GELU_LINE - 1: planted nondeterminism
        h = F.gelu(h, approximate=self.approximate)  # GELU_LINE
        if self.dropout:
            h = F.dropout(h, 0.5)
        return h


class Net(nn.Module):
    def __init__(self, approximate: str = "none", noise: bool = False, dropout: bool = False) -> None:
        super().__init__()
        self.inp = nn.Linear(3, 4)
        self.block = Block(approximate, noise, dropout)
        self.out = nn.Linear(4, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.out(self.block(self.inp(x)))


def _line_of(marker: str) -> int:
    lines, start = inspect.getsourcelines(Block.forward)
    return start + next(i for i, line in enumerate(lines) if line.rstrip().endswith(f"# {marker}"))


_noise_seeds = itertools.count(1)


def training_step(**options: object) -> Callable[[], torch.Tensor]:
    def run() -> torch.Tensor:
        torch.manual_seed(0)
        model = Net(**options)  # type: ignore[arg-type]
        x = torch.randn(2, 3)
        if options.get("noise"):
            torch.manual_seed(next(_noise_seeds))  # the planted bug: each run draws other noise
        model(x).sum().backward()
        return model.inp.weight.grad

    return run


def test_a_changed_activation_is_named_by_module_op_and_source_line() -> None:
    report = tc.localize_divergence(training_step(approximate="none"), training_step(approximate="tanh"))

    assert report.diverged
    assert (report.phase, report.module, report.call, report.starts_inside) == ("forward", "'block' (Block)", 1, True)
    assert report.op == "aten.gelu.default"
    assert report.source == f"{__file__}:{_line_of('GELU_LINE')}"
    text = str(report)
    assert "module 'block' (Block), call 1 of 1: inputs agree, output differs" in text
    assert "h = F.gelu(h, approximate=self.approximate)" in text


def test_planted_random_noise_is_named_as_a_random_draw() -> None:
    report = tc.localize_divergence(training_step(noise=True), training_step(noise=True))

    assert report.module == "'block' (Block)"
    assert report.op == "aten.randn_like.default"
    assert report.source == f"{__file__}:{_line_of('GELU_LINE') - 1}"
    assert report.note is not None and "draws random numbers" in report.note


def test_identical_runs_report_no_divergence() -> None:
    report = tc.localize_divergence(training_step(), training_step())

    assert not report.diverged
    assert report.module is None and report.op is None
    assert str(report) == "Where it starts: nowhere, the two runs agree."


def test_different_op_sequences_stop_at_the_module_and_say_why() -> None:
    report = tc.localize_divergence(training_step(), training_step(dropout=True))

    assert report.module == "'block' (Block)" and report.starts_inside
    assert report.op is None and report.source is None
    assert report.note is not None
    assert "Op level not possible: the two runs execute different operations" in report.note
    assert "bernoulli" in report.note


def test_an_inherited_difference_is_not_called_the_start() -> None:
    def run(scale: float) -> Callable[[], torch.Tensor]:
        def step() -> torch.Tensor:
            torch.manual_seed(0)
            return Net()(torch.ones(2, 3) * scale)

        return step

    report = tc.localize_divergence(run(1.0), run(2.0))

    assert report.module == "'inp' (Linear)"
    assert report.starts_inside is False
    assert report.op is None
    assert "inputs already differ" in str(report)


def test_tolerances_absorb_small_differences() -> None:
    report = tc.localize_divergence(
        training_step(approximate="none"), training_step(approximate="tanh"), rtol=1e-2, atol=1e-3
    )

    assert not report.diverged


def test_module_level_records_no_operations() -> None:
    report = tc.localize_divergence(
        training_step(approximate="none"), training_step(approximate="tanh"), level="module"
    )

    assert report.module == "'block' (Block)"
    assert report.op is None and report.note is None


def test_a_difference_outside_modules_is_reported_without_a_module() -> None:
    def run(extra: float) -> Callable[[], torch.Tensor]:
        def step() -> torch.Tensor:
            torch.manual_seed(0)
            return Net()(torch.ones(2, 3)).sum() + extra

        return step

    report = tc.localize_divergence(run(0.0), run(1.0))

    assert report.diverged and report.module is None
    assert report.note is not None and "outside modules" in report.note


def test_an_unknown_level_is_refused() -> None:
    with pytest.raises(ValueError, match="level must be one of"):
        tc.localize_divergence(training_step(), training_step(), level="kernel")


def test_hooks_are_removed_afterwards() -> None:
    tc.localize_divergence(training_step(), training_step())

    assert not nn.modules.module._global_forward_hooks
    assert not nn.modules.module._global_forward_pre_hooks
    assert not nn.modules.module._has_any_global_hook()  # else torch.compile warns from now on
