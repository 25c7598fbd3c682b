"""A helper of the file that hands its parameter to a function of another file hands over
what its caller passed: ``eval_model(model)`` calling ``synthesis.tts(model)``, which leaves the
model in eval mode, is reported where the training loop calls ``eval_model`` (TCK106)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import libcst as cst

from torchcheck.lint.api import LintOptions, lint
from torchcheck.lint.binder import Binder
from torchcheck.lint.summaries import Delegation, ModuleSummaries

SYNTHESIS = """
import torch

def tts(model, text):
    model.eval()
    with torch.no_grad():
        return model(text)

def tts_and_restore(model, text):
    model.eval()
    with torch.no_grad():
        out = model(text)
    model.train()
    return out
"""

TRAIN = """
import synthesis

def eval_model(step, model, texts):
    for text in texts:
        synthesis.{callee}(model, text)

def log_and_evaluate(step, net, texts):
    if step % 100 == 0:
        eval_model(step, net, texts)

def train(model, loader, optimizer, texts):
    model.train()
    for step, (x, y) in enumerate(loader):
        loss = model(x, y)
        loss.backward()
        optimizer.step()
        log_and_evaluate(step, model, texts)
"""


def _lint(tmp_path: Path, callee: str) -> list[tuple[str, int]]:
    (tmp_path / "synthesis.py").write_text(textwrap.dedent(SYNTHESIS), encoding="utf-8")
    (tmp_path / "train.py").write_text(textwrap.dedent(TRAIN).replace("{callee}", callee), encoding="utf-8")
    result = lint(LintOptions(paths=(tmp_path,), select=("TCK106",), use_cache=False))
    return sorted((Path(d.filename).name, d.location.row) for d in result.diagnostics)


def test_a_helper_chain_that_hands_the_model_to_another_file_leaving_it_in_eval_is_reported(tmp_path: Path) -> None:
    assert _lint(tmp_path, "tts") == [("train.py", 18)]


def test_a_function_of_another_file_that_restores_train_mode_keeps_the_loop_silent(tmp_path: Path) -> None:
    assert _lint(tmp_path, "tts_and_restore") == []


class _Names:
    module_classes: frozenset[str] = frozenset()

    def __init__(self, module: cst.Module) -> None:
        self.binder = Binder(module)

    def qualified_name(self, expression: cst.BaseExpression) -> str | None:
        return None

    def module_constant_kind(self, name: str) -> None:
        return None


def test_summaries_record_what_a_function_hands_to_functions_it_cannot_summarise() -> None:
    module = cst.parse_module(textwrap.dedent(TRAIN).replace("{callee}", "tts"))
    summaries = ModuleSummaries(module, _Names(module))  # type: ignore[arg-type]
    functions = {statement.name.value: statement for statement in module.body if isinstance(statement, cst.FunctionDef)}
    assert summaries.of(functions["eval_model"]).delegations == (Delegation("synthesis.tts", ("model", None), ()),)
    assert summaries.of(functions["log_and_evaluate"]).delegations == (Delegation("synthesis.tts", ("net", None), ()),)
    assert summaries.of(functions["train"]).delegations == (Delegation("synthesis.tts", ("model", None), ()),)
