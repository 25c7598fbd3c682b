"""A call that passes a literal for a parameter the callee's tests compare gets the effects of
the branches that literal takes, when the callee lives in another file too: the stored summary
keeps each case whose effects differ, and the call's literals pick the case."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from torchcheck.lint.api import LintOptions, lint

_TRAINING_SCRIPT = """
import torch


def iterate(model, loader, optimizer=None, mode="train"):
    for x, y in loader:
        if mode != "train":
            with torch.no_grad():
                out = model(x)
        else:
            out = model(x)
        loss = torch.nn.functional.cross_entropy(out, y)
        if mode == "train":
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
"""
_EVALUATION_SCRIPT = """
from train import iterate


def main(model, folds, optimizer, chosen):
    for loader in folds:
        model.eval()
        iterate(model, loader, optimizer, {mode})
"""


def _tck106_rows(root: Path, mode: str, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    (root / "train.py").write_text(textwrap.dedent(_TRAINING_SCRIPT).lstrip(), encoding="utf-8")
    (root / "evaluate.py").write_text(textwrap.dedent(_EVALUATION_SCRIPT.format(mode=mode)).lstrip(), encoding="utf-8")
    monkeypatch.chdir(root)
    result = lint(LintOptions(paths=(Path("."),), use_cache=False))
    return [d.location.row for d in result.diagnostics if d.code == "TCK106" and d.filename.endswith("evaluate.py")]


@pytest.mark.parametrize("mode", ['mode="test"', '"val"', 'mode="eval"'])
def test_a_literal_that_skips_the_training_branch_trains_nothing(tmp_path: Path, mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _tck106_rows(tmp_path, mode, monkeypatch) == []


@pytest.mark.parametrize("mode", ['mode="train"', '"train"', "mode=chosen"])
def test_a_literal_that_takes_the_training_branch_or_a_name_still_trains(tmp_path: Path, mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _tck106_rows(tmp_path, mode, monkeypatch) == [6]


_HELPERS = """
def reset(optimizer, what="gradients"):
    if what == "gradients":
        optimizer.zero_grad()
    else:
        optimizer.state.clear()
"""
_LOOP = """
from helpers import reset


def train(model, loader, optimizer):
    for x in loader:
        model(x).sum().backward()
        reset(optimizer, {what})
        optimizer.step()
"""


@pytest.mark.parametrize(("what", "rows"), [('"gradients"', [7]), ('what="state"', []), ("what=optimizer", [])])
def test_an_effect_that_a_literal_makes_certain_is_certain_at_that_call(tmp_path: Path, what: str, rows: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "helpers.py").write_text(textwrap.dedent(_HELPERS).lstrip(), encoding="utf-8")
    (tmp_path / "train.py").write_text(textwrap.dedent(_LOOP.format(what=what)).lstrip(), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = lint(LintOptions(paths=(Path("."),), use_cache=False))
    assert [d.location.row for d in result.diagnostics if d.code == "TCK103"] == rows


_SCRIPT_HANDING_ON = """
import torch
from train import iterate


def main(model, loader):
    wrapped = torch.nn.DataParallel(model)
    iterate(wrapped, loader, None, {mode})
"""


@pytest.mark.parametrize(("mode", "rows"), [('mode="test"', []), ('mode="train"', [6])])
def test_a_wrap_handed_to_a_helper_whose_literal_skips_training_serves_inference(tmp_path: Path, mode: str, rows: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "train.py").write_text(textwrap.dedent(_TRAINING_SCRIPT).lstrip(), encoding="utf-8")
    (tmp_path / "predict.py").write_text(textwrap.dedent(_SCRIPT_HANDING_ON.format(mode=mode)).lstrip(), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = lint(LintOptions(paths=(Path("."),), use_cache=False))
    assert [d.location.row for d in result.diagnostics if d.code == "TCK204" and d.filename.endswith("predict.py")] == rows
