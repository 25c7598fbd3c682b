"""Every global setting the docs list is back after a check whose callback changed it
and then raised -- through ``seeded`` (used by ``assert_reproducible``) and through
``preserved_state`` (used by every other check)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import torch

import torchcheck as tc
from torchcheck.checks.state import capture_global_state, describe_state_changes, preserved_state


class CallbackFailed(Exception):
    """Raised by the user callbacks below after they changed a setting."""


@dataclass(frozen=True)
class Setting:
    change: Callable[[], object]
    read: Callable[[], object]


def _legacy(read: Callable[[], object]) -> Callable[[], object]:
    """A legacy TF32 flag, or "refused" where torch will not read it (new API in use)."""

    def read_or_refused() -> object:
        try:
            return read()
        except RuntimeError:
            return "refused"

    return read_or_refused


_tf32_matmul = _legacy(lambda: torch.backends.cuda.matmul.allow_tf32)
_tf32_cudnn = _legacy(lambda: torch.backends.cudnn.allow_tf32)


SETTINGS: dict[str, Setting] = {
    "default dtype": Setting(lambda: torch.set_default_dtype(torch.float64), torch.get_default_dtype),
    "grad mode": Setting(lambda: torch.set_grad_enabled(False), torch.is_grad_enabled),
    "deterministic algorithms": Setting(
        lambda: torch.use_deterministic_algorithms(True, warn_only=True),
        lambda: (torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled()),
    ),
    "fill uninitialized memory": Setting(
        lambda: setattr(torch.utils.deterministic, "fill_uninitialized_memory", False),
        lambda: torch.utils.deterministic.fill_uninitialized_memory,
    ),
    "cudnn enabled": Setting(
        lambda: setattr(torch.backends.cudnn, "enabled", False), lambda: torch.backends.cudnn.enabled
    ),
    "cudnn deterministic": Setting(
        lambda: setattr(torch.backends.cudnn, "deterministic", True),
        lambda: torch.backends.cudnn.deterministic,
    ),
    "cudnn benchmark": Setting(
        lambda: setattr(torch.backends.cudnn, "benchmark", True), lambda: torch.backends.cudnn.benchmark
    ),
    "cudnn allow_tf32": Setting(
        lambda: setattr(torch.backends.cudnn, "allow_tf32", False), _tf32_cudnn
    ),
    "cuda matmul allow_tf32": Setting(
        lambda: setattr(torch.backends.cuda.matmul, "allow_tf32", True), _tf32_matmul
    ),
    "float32 matmul precision": Setting(
        lambda: torch.set_float32_matmul_precision("medium"), torch.get_float32_matmul_precision
    ),
    # The new API makes torch refuse to read the legacy flags until it is undone.
    "fp32_precision everywhere": Setting(
        lambda: setattr(torch.backends, "fp32_precision", "tf32"),
        lambda: (torch.backends.fp32_precision, _tf32_matmul(), _tf32_cudnn()),
    ),
    "cudnn conv fp32_precision": Setting(
        lambda: setattr(torch.backends.cudnn.conv, "fp32_precision", "ieee"),
        lambda: (torch.backends.cudnn.conv.fp32_precision, _tf32_cudnn()),
    ),
    "default device": Setting(lambda: torch.set_default_device("meta"), lambda: torch.empty(1).device),
    "number of threads": Setting(lambda: torch.set_num_threads(torch.get_num_threads() % 2 + 1), torch.get_num_threads),
    "anomaly mode": Setting(
        lambda: torch.autograd.set_detect_anomaly(True, check_nan=False),
        lambda: (torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()),
    ),
    "flush denormal": Setting(
        lambda: torch.set_flush_denormal(True),
        lambda: (torch.full((1,), 5e-324, dtype=torch.float64) * 1.0).item(),
    ),
    "autocast left entered on cpu": Setting(
        lambda: torch.autocast("cpu", dtype=torch.float16).__enter__(),
        lambda: (torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu")),
    ),
    "autocast flags set on cuda": Setting(
        lambda: (torch.set_autocast_enabled("cuda", True), torch.set_autocast_dtype("cuda", torch.bfloat16)),
        lambda: (torch.is_autocast_enabled("cuda"), torch.get_autocast_dtype("cuda")),
    ),
    "autocast cache": Setting(
        lambda: torch.set_autocast_cache_enabled(False), torch.is_autocast_cache_enabled
    ),
    "print options": Setting(
        lambda: torch.set_printoptions(precision=2, threshold=5, edgeitems=1, linewidth=40, sci_mode=True),
        lambda: str(torch.arange(10) / 3),
    ),
}


def _through_assert_reproducible(callback: Callable[[], object]) -> None:
    tc.assert_reproducible(callback)


@contextlib.contextmanager
def _seeded_block() -> Iterator[None]:
    with tc.seeded(0):
        yield


def _through_seeded(callback: Callable[[], object]) -> None:
    with _seeded_block():
        callback()


def _through_assert_no_graph_leak(callback: Callable[[], object]) -> None:
    tc.assert_no_graph_leak(callback, steps=2)


CHECKS: dict[str, Callable[[Callable[[], object]], None]] = {
    "assert_reproducible": _through_assert_reproducible,
    "seeded": _through_seeded,
    "assert_no_graph_leak": _through_assert_no_graph_leak,
}


@pytest.mark.parametrize("check", sorted(CHECKS))
@pytest.mark.parametrize("setting", sorted(SETTINGS))
def test_a_setting_changed_by_a_failing_callback_is_back_after_the_check(setting: str, check: str) -> None:
    before = SETTINGS[setting].read()
    seen_inside: list[Any] = []

    def callback() -> None:
        SETTINGS[setting].change()
        seen_inside.append(SETTINGS[setting].read())
        raise CallbackFailed(setting)

    with pytest.raises(CallbackFailed):
        CHECKS[check](callback)
    assert seen_inside and seen_inside[0] != before, "the callback did not change the setting"
    assert SETTINGS[setting].read() == before


def test_autocast_left_entered_is_off_after_the_check_and_a_matmul_runs_in_float32() -> None:
    def callback() -> None:
        torch.autocast("cpu", dtype=torch.bfloat16).__enter__()
        assert (torch.ones(2, 2) @ torch.ones(2, 2)).dtype == torch.bfloat16
        raise CallbackFailed("left autocast entered")

    with pytest.raises(CallbackFailed):
        tc.assert_reproducible(callback)
    assert not torch.is_autocast_enabled("cpu")
    assert (torch.ones(2, 2) @ torch.ones(2, 2)).dtype == torch.float32
    # the nesting counter is back at zero: entering a region now makes it one deep
    assert torch.autocast_increment_nesting() == 1
    torch.autocast_decrement_nesting()


def test_a_check_restores_autocast_the_caller_itself_had_entered() -> None:
    with torch.autocast("cpu", dtype=torch.bfloat16):
        with pytest.raises(CallbackFailed):
            tc.assert_reproducible(lambda: _leave_autocast_disabled_and_fail())
        assert torch.is_autocast_enabled("cpu")
        assert torch.get_autocast_dtype("cpu") == torch.bfloat16
    assert not torch.is_autocast_enabled("cpu")


def _leave_autocast_disabled_and_fail() -> None:
    torch.autocast("cpu", enabled=False).__enter__()
    raise CallbackFailed("left a disabled autocast region entered")


def test_leaked_autocast_and_anomaly_mode_are_named_as_state_changes() -> None:
    before = capture_global_state()
    with preserved_state():
        torch.autocast("cpu", dtype=torch.float16).__enter__()
        torch.autograd.set_detect_anomaly(True)
        changes = describe_state_changes(before, capture_global_state())
    assert capture_global_state() == before
    assert changes == [
        "anomaly detection (torch.autograd.set_detect_anomaly) changed from False to True",
        "autocast on cpu (torch.is_autocast_enabled('cpu')) changed from False to True",
        "autocast dtype on cpu (torch.get_autocast_dtype('cpu')) changed from torch.bfloat16 to torch.float16",
        "autocast nesting depth (autocast regions entered and never exited) changed from 0 to 1",
    ]


def test_capturing_state_after_the_new_tf32_api_was_used_names_the_changes_and_does_not_raise() -> None:
    before = capture_global_state()
    with preserved_state():
        torch.backends.cuda.matmul.fp32_precision = "tf32"
        changes = describe_state_changes(before, capture_global_state())
    assert torch.backends.cuda.matmul.allow_tf32 is False
    assert changes == [
        "float32 matmul precision (torch.set_float32_matmul_precision, "
        "torch.backends.cuda.matmul.allow_tf32) changed from highest to unreadable "
        "(legacy allow_tf32 and new fp32_precision settings mixed)",
        "torch.backends.cuda.matmul.fp32_precision changed from none to tf32",
    ]
