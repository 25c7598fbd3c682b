"""assert_gradcheck estimates its cost before it runs: fast mode, or a failure that
says how long it would take and what to do, never hours of finite differences."""

from __future__ import annotations

import time
import warnings

import pytest
import torch
from torch import nn

from torchcheck import CheckFailed, assert_gradcheck
from torchcheck.checks._gradcheck_cost import GradcheckCost


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):  # type: ignore[no-untyped-def]
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad):  # type: ignore[no-untyped-def]
        (x,) = ctx.saved_tensors
        return 3 * x * grad  # bug: the derivative of x*x is 2*x


class SlowLayer(nn.Module):
    """25k parameters and a forward of at least a millisecond, like a real layer:
    a full gradcheck would need some 50k forwards."""

    def __init__(self, wrong_backward: bool = False) -> None:
        super().__init__()
        self.fc = nn.Linear(160, 160)
        self.wrong_backward = wrong_backward

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        time.sleep(0.001)
        return torch.tanh(self.fc(Square.apply(x) if self.wrong_backward else x))


def test_gradcheck_of_a_large_module_switches_to_fast_mode_and_says_so() -> None:
    start = time.perf_counter()
    with pytest.warns(RuntimeWarning, match=r"a full gradcheck of SlowLayer would take about \d+(\.\d)? (s|min) "):
        assert_gradcheck(SlowLayer(), torch.randn(1, 160))
    assert time.perf_counter() - start < 5


def test_fast_mode_still_finds_a_wrong_backward_in_a_large_module() -> None:
    # fast mode compares random projections; on about one draw of layer and input in twelve
    # this 1.5x derivative error stays within tolerance, so the draw is fixed
    torch.manual_seed(0)
    with pytest.warns(RuntimeWarning, match="using fast_mode=True"), pytest.raises(CheckFailed) as failure:
        assert_gradcheck(SlowLayer(wrong_backward=True), torch.randn(1, 160))
    assert "disagrees with finite differences for input x " in str(failure.value)


def test_a_full_gradcheck_over_the_limit_fails_before_running_with_the_estimate_and_the_way_out() -> None:
    start = time.perf_counter()
    with pytest.raises(CheckFailed) as failure:
        assert_gradcheck(SlowLayer(), torch.randn(1, 160), fast_mode=False)
    assert time.perf_counter() - start < 2
    message = str(failure.value)
    assert message.startswith("assert_gradcheck: a full gradcheck of SlowLayer would take about ")
    assert "25,920 input and parameter elements in 3 tensors, 160 output elements" in message
    assert "over the limit of max_seconds=30. Nothing was run." in message
    assert "or fast_mode=True; or pass max_seconds=None to run it anyway." in message


def test_a_small_gradcheck_runs_in_full_as_before() -> None:
    assert_gradcheck(nn.Linear(4, 3), torch.randn(2, 4), max_seconds=60)


def test_the_estimate_grows_with_elements_and_fast_mode_with_tensors() -> None:
    cost = GradcheckCost(
        forward_seconds=0.01, backward_seconds=0.02, input_elements=12_000, input_tensors=4,
        output_elements=100, output_tensors=1,
    )
    assert cost.full_seconds(gradgrad=False) > 240  # 24,000 forwards of 10 ms
    assert cost.fast_seconds(gradgrad=False) == pytest.approx(2 * 4 * 0.01 + 0.02)
    assert cost.full_seconds(gradgrad=True) > cost.full_seconds(gradgrad=False)


class _FirstBackwardSlow(torch.autograd.Function):
    """Identity whose first backward pays a one-time cost, as lazy initialisation does."""

    @staticmethod
    def forward(ctx, x, owner):  # type: ignore[no-untyped-def]
        ctx.owner = owner
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad):  # type: ignore[no-untyped-def]
        if not ctx.owner.backward_ran:
            ctx.owner.backward_ran = True
            time.sleep(0.05)
        return grad, None


class LazyMlp(nn.Module):
    """A small MLP whose first forward and first backward are slow (lazy initialisation)."""

    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 16))
        self.forward_ran = False
        self.backward_ran = False

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.forward_ran:
            self.forward_ran = True
            time.sleep(0.05)
        return self.net(_FirstBackwardSlow.apply(x, self))


def test_a_small_model_whose_first_calls_are_slow_is_estimated_from_warm_runs_and_checked_in_full() -> None:
    # its first backward alone, times its 64 output elements, would make an estimate of 3 s;
    # the full check takes some 0.1 s
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no switch to fast mode
        assert_gradcheck(LazyMlp(), torch.randn(4, 16), fast_mode=False, max_seconds=2)
