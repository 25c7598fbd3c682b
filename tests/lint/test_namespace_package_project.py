"""A module of a namespace package (a folder without ``__init__.py``) belongs to the project of
the files that import it: a project-wide fact such as "some file calls ``set_epoch``" is looked
for under their package roots too, not only under the folder of the module itself."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from torchcheck.lint.api import LintOptions, lint

_BUILDER = """
from torch.utils.data import DataLoader, DistributedSampler


def prepare_dataloaders(dataset, batch_size):
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler)
    return loader, sampler
"""
_TRAINING_SCRIPT = """
import os.path as osp
import sys

sys.path.insert(0, osp.join(osp.dirname(__file__), ".."))
from lib.perpare import prepare_dataloaders


def main(model, optimizer, dataset, epochs):
    loader, sampler = prepare_dataloaders(dataset, 32)
    for epoch in range(epochs):
{set_epoch}        for x in loader:
            optimizer.zero_grad()
            model(x).sum().backward()
            optimizer.step()
"""


def _tck206(root: Path, set_epoch: str, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    for relative, text in (("code/lib/perpare.py", _BUILDER), ("code/src/train.py", _TRAINING_SCRIPT.format(set_epoch=set_epoch))):
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    monkeypatch.chdir(root)
    result = lint(LintOptions(paths=(Path("."),), use_cache=False))
    return [d.filename for d in result.diagnostics if d.code == "TCK206"]


def test_a_set_epoch_in_the_script_that_imports_the_builder_counts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _tck206(tmp_path, "        sampler.set_epoch(epoch)\n", monkeypatch) == []


def test_without_it_the_builders_sampler_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert [Path(name).name for name in _tck206(tmp_path, "", monkeypatch)] == ["perpare.py"]
