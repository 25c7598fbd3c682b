"""A failed check reads well under pytest: its message first, in the short summary too.

The checks modules set ``__tracebackhide__``, so pytest leaves torchcheck's own frames out
of the traceback while the frames of the user's model stay; the entry-point plugin puts
the message's first line in the short summary, whether or not the run turned it on.
"""

from __future__ import annotations

import pytest

FAILING_CHECK = """
import torch
from torch import nn

import torchcheck as tc


class HalfUsed(nn.Module):
    def __init__(self):
        super().__init__()
        self.used = nn.Linear(4, 4)
        self.unused = nn.Linear(4, 4)

    def forward(self, x):
        return self.used(x)


class Broken(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.Linear(4, 4)

    def forward(self, x):
        return self.layer(x.reshape(3, -1))  # the user's own bug


def test_gradients(seeded):
    tc.assert_gradients_flow(HalfUsed(), torch.randn(2, 4))


def test_broken_model(seeded):
    tc.assert_gradients_flow(Broken(), torch.randn(2, 4))
"""


def test_a_failed_check_shows_the_test_line_then_its_message_without_torchcheck_source(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_checks=FAILING_CHECK)
    result = pytester.runpytest("-p", "no:randomly", "-k", "test_gradients")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            ">       tc.assert_gradients_flow(HalfUsed(), torch.randn(2, 4))",
            "E       torchcheck.checks.errors.CheckFailed: assert_gradients_flow: 2 of 4 parameters*",
        ]
    )
    result.stdout.no_fnmatch_line("*def assert_gradients_flow*")
    result.stdout.no_fnmatch_line("*torchcheck/checks/*")


def test_a_check_that_calls_a_broken_model_shows_the_models_frame(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_checks=FAILING_CHECK)
    result = pytester.runpytest("-p", "no:randomly", "-k", "test_broken_model")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            ">       tc.assert_gradients_flow(Broken(), torch.randn(2, 4))",
            ">       return self.layer(x.reshape(3, -1))  # the user's own bug",
            "E       RuntimeError: shape '[[]3, -1[]]' is invalid*",
        ]
    )
    result.stdout.no_fnmatch_line("*torchcheck/checks/*")


@pytest.mark.parametrize("turned_on", [True, False], ids=["plugin on", "plugin off"])
def test_the_short_summary_shows_the_first_line_of_the_checks_message(
    pytester: pytest.Pytester, turned_on: bool
) -> None:
    if not turned_on:
        (pytester.path / "tox.ini").unlink()
    pytester.makepyfile(test_checks=FAILING_CHECK.replace("(seeded)", "()"))
    result = pytester.runpytest("-p", "no:randomly", "-k", "test_gradients", "-rf")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["FAILED test_checks.py::test_gradients - assert_gradients_flow: 2 of 4 *"]
    )
