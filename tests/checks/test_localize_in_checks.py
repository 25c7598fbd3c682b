"""The "Where it starts" section of the equivalence checks' failures, and the
``--torchcheck-localize`` setting (keyword, env, option, ini) that controls it."""

from __future__ import annotations

import inspect
import itertools
from collections.abc import Callable

import pytest
import torch
from torch import nn

from torchcheck import CheckFailed, assert_reproducible
from torchcheck.checks._localize_setting import localize_level

_drift = itertools.count(1)
_shared_generator = torch.Generator().manual_seed(0)  # keeps its state from one run to the next


class Drift(nn.Module):
    """Scales by a Python-side counter: every call computes something else."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * (1 + 1e-3 * next(_drift))  # DRIFT_LINE


class SharedNoise(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + torch.randn(x.shape, generator=_shared_generator)  # NOISE_LINE


def model_run(middle: Callable[[], nn.Module]) -> Callable[[], torch.Tensor]:
    def run() -> torch.Tensor:
        model = nn.Sequential(nn.Linear(3, 4), middle(), nn.Linear(4, 2))
        return model(torch.ones(2, 3))

    run.__name__ = f"run_with_{middle.__name__}"
    return run


def _source_of(module: type[nn.Module], marker: str) -> str:
    lines, start = inspect.getsourcelines(module.forward)
    line = start + next(i for i, text in enumerate(lines) if text.rstrip().endswith(f"# {marker}"))
    return f"{__file__}:{line}"


def _failure(fn: Callable[[], torch.Tensor], **options: str) -> str:
    with pytest.raises(CheckFailed) as failure:
        assert_reproducible(fn, **options)  # type: ignore[arg-type]
    return str(failure.value)


@pytest.fixture(autouse=True)
def _no_localize_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TORCHCHECK_LOCALIZE", raising=False)


def test_state_carried_between_calls_is_located_at_its_module_op_and_line() -> None:
    message = _failure(model_run(Drift))

    assert "Where it starts (forward): module '1' (Drift), call 1 of 1: inputs agree, output differs" in message
    assert f"First differing op: aten.mul.Tensor at {_source_of(Drift, 'DRIFT_LINE')}" in message
    assert "return x * (1 + 1e-3 * next(_drift))" in message


def test_a_generator_the_seed_does_not_reach_is_located_as_a_random_draw() -> None:
    message = _failure(model_run(SharedNoise))

    assert "module '1' (SharedNoise), call 1 of 1: inputs agree" in message
    assert f"First differing op: aten.randn.generator at {_source_of(SharedNoise, 'NOISE_LINE')}" in message
    assert "It draws random numbers" in message


def test_the_keyword_turns_localisation_off_or_stops_it_at_the_module() -> None:
    assert "Where it starts" not in _failure(model_run(Drift), localize="off")
    message = _failure(model_run(Drift), localize="module")
    assert "module '1' (Drift)" in message
    assert "First differing op" not in message


def test_the_environment_variable_sets_the_default_and_the_keyword_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TORCHCHECK_LOCALIZE", "off")
    assert "Where it starts" not in _failure(model_run(Drift))
    assert "First differing op: aten.mul.Tensor" in _failure(model_run(Drift), localize="op")


def test_a_bad_level_is_refused_naming_where_it_came_from(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match=r"localize=: expected one of off, module, op, got 'ops'"):
        assert_reproducible(model_run(nn.Identity), localize="ops")
    monkeypatch.setenv("TORCHCHECK_LOCALIZE", "yes")
    with pytest.raises(ValueError, match=r"TORCHCHECK_LOCALIZE: expected one of off, module, op, got 'yes'"):
        assert_reproducible(model_run(nn.Identity))


def test_a_reproducible_model_passes_with_localisation_on() -> None:
    assert_reproducible(model_run(nn.ReLU), localize="op")


PLANTED_DRIFT_TEST = """
import itertools

import torch
from torch import nn

import torchcheck as tc

_drift = itertools.count(1)


class Drift(nn.Module):
    def forward(self, x):
        return x * (1 + 1e-3 * next(_drift))


def test_drift():
    tc.assert_reproducible(lambda: nn.Sequential(nn.Linear(3, 4), Drift())(torch.ones(2, 3)))
"""


@pytest.mark.parametrize(
    ("ini", "args", "shows_section", "shows_op"),
    [
        ("torchcheck = true\n", (), True, True),
        ("", ("--torchcheck-localize=off",), False, False),  # the option alone turns the plugin on
        ("torchcheck = true\ntorchcheck_localize = module\n", (), True, False),
        ("torchcheck = true\ntorchcheck_localize = off\n", ("--torchcheck-localize=op",), True, True),
    ],
    ids=["default", "option-off", "ini-module", "option-beats-ini"],
)
def test_the_plugin_setting_reaches_the_check(
    pytester: pytest.Pytester, ini: str, args: tuple[str, ...], shows_section: bool, shows_op: bool
) -> None:
    pytester.makeini(f"[pytest]\n{ini}")
    pytester.makepyfile(test_drift=PLANTED_DRIFT_TEST)

    result = pytester.runpytest("-p", "no:randomly", *args)

    result.assert_outcomes(failed=1)
    output = result.stdout.str()
    assert ("Where it starts (forward): module '1' (Drift)" in output) is shows_section
    assert ("First differing op: aten.mul.Tensor" in output) is shows_op
    assert localize_level() == "op", "the inner session's setting outlived it"


def test_a_bad_plugin_setting_stops_the_run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makeini("[pytest]\ntorchcheck = true\n")
    pytester.makepyfile(test_nothing="def test_nothing(): pass")
    monkeypatch.setenv("TORCHCHECK_LOCALIZE", "everywhere")

    result = pytester.runpytest("-p", "no:randomly")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*TORCHCHECK_LOCALIZE: expected one of off, module, op, got 'everywhere'*"])
