"""A module stored from a constructor parameter that every call of the file fills with an
instance of a class of another project file is a module when the project index finds
``nn.Module`` up that class's bases."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from torchcheck.lint.api import LintOptions, lint

_QUANTIZATION = """
import torch.nn as nn


class ResidualVectorQuantizer({base}):
    def forward(self, x):
        return x
"""
_MODEL = """
import torch.nn as nn

import quantization as qt


class Codec(nn.Module):
    def __init__(self, encoder, quantizer):
        super().__init__()
        self.encoder = encoder
        self.quantizer = quantizer

    def forward(self, x):
        return self.quantizer.forward(self.encoder(x))

    @staticmethod
    def build():
        return Codec(nn.Linear(4, 4), qt.ResidualVectorQuantizer())


model = Codec.build()
"""


@pytest.mark.parametrize(("base", "rows"), [("nn.Module", [13]), ("object", [])])
def test_the_class_every_call_passes_decides(tmp_path: Path, base: str, rows: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "quantization.py").write_text(textwrap.dedent(_QUANTIZATION.format(base=base)).lstrip(), encoding="utf-8")
    (tmp_path / "model.py").write_text(textwrap.dedent(_MODEL).lstrip(), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = lint(LintOptions(paths=(Path("."),), use_cache=False))
    assert [d.location.row for d in result.diagnostics if d.code == "TCK105"] == rows
