"""lint/modes: which mode a call leaves a module in, and whether a call needs gradients."""

from __future__ import annotations

import libcst as cst
import pytest

from torchcheck.lint.modes import CHOSEN, covers, mode_set_by
from torchcheck.lint.summaries import EVAL, TRAIN


def _call(code: str) -> cst.Call:
    expression = cst.parse_expression(code)
    assert isinstance(expression, cst.Call)
    return expression


@pytest.mark.parametrize(
    ("code", "mode"),
    [
        ("model.eval()", EVAL),
        ("model.train(False)", EVAL),
        ("model.train(mode=False)", EVAL),
        ("model.train()", TRAIN),
        ("model.train(True)", TRAIN),
        ("model.train(is_training)", CHOSEN),
        ("model(x)", None),
        ("train(model)", None),
    ],
)
def test_mode_set_by_names_the_mode_a_call_switches_to(code: str, mode: str | None) -> None:
    assert mode_set_by(_call(code)) == mode


def test_a_switched_module_covers_its_submodules_but_not_its_namesakes() -> None:
    assert covers("model", "model")
    assert covers("model", "model.encoder")
    assert not covers("model", "model_ema")
