"""A file that never trains wraps a model in ``DataParallel`` and hands it to one function
of another project file: TCK204 stands only if that function trains it."""

from __future__ import annotations

import textwrap
from pathlib import Path

from torchcheck.lint.api import LintOptions, lint

MAIN = """
import torch
from helpers import {helper}

def main(build, loader, bank):
    model = torch.nn.DataParallel(build())
    model = model.cuda()
    {helper}(loader, model, bank)
"""
HELPERS = """
import torch

def fill_memory_bank(loader, model, bank):
    model.eval()
    with torch.no_grad():
        for x in loader:
            bank.update(model(x))

def train_epoch(loader, model, optimizer):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()
"""


def _findings(root: Path, helper: str) -> list[tuple[str, int, str]]:
    (root / "main.py").write_text(textwrap.dedent(MAIN.format(helper=helper)), encoding="utf-8")
    (root / "helpers.py").write_text(textwrap.dedent(HELPERS), encoding="utf-8")
    result = lint(LintOptions(paths=(root,), select=("TCK204",), use_cache=False))
    return sorted((Path(d.filename).name, d.location.row, d.code) for d in result.diagnostics)


def test_a_model_handed_only_to_an_inference_helper_is_not_reported(tmp_path: Path) -> None:
    assert _findings(tmp_path, "fill_memory_bank") == []


def test_a_model_handed_to_a_training_helper_is_reported(tmp_path: Path) -> None:
    assert _findings(tmp_path, "train_epoch") == [("main.py", 6, "TCK204")]
