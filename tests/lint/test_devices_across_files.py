"""A device can come from a function of another file: ``.to(get_device())`` moves a tensor
to a device when ``get_device`` returns one (a device string, or a module-level constant
bound to one), and to something else when it returns something else."""

from __future__ import annotations

import textwrap
from pathlib import Path

from torchcheck.lint.api import LintOptions, lint

CORE = """
import torch

DEFAULT_DEVICE = "cuda" if torch.cuda.is_available() else "cpu"

def get_device():
    return DEFAULT_DEVICE

def get_dtype():
    return torch.float16

def get_name():
    return DEVICE_NAME

DEVICE_NAME = 3
"""

OPS = """
import torch
from core import get_device, get_dtype, get_name

def ones(shape):
    return torch.ones(shape).to(get_device())

def halves(shape):
    return torch.ones(shape).to(get_dtype())

def named(shape, get_device):
    return torch.zeros(shape).to(get_device())
"""


def _findings(root: Path) -> list[tuple[str, int, str]]:
    (root / "core.py").write_text(textwrap.dedent(CORE), encoding="utf-8")
    (root / "ops.py").write_text(textwrap.dedent(OPS), encoding="utf-8")
    result = lint(LintOptions(paths=(root,), select=("TCK201",), use_cache=False))
    return sorted((Path(d.filename).name, d.location.row, d.code) for d in result.diagnostics)


def test_a_factory_moved_to_the_device_another_file_returns_is_reported(tmp_path: Path) -> None:
    assert _findings(tmp_path) == [("ops.py", 6, "TCK201")]


def test_a_device_returned_as_a_module_constant_is_a_device_in_its_own_file(tmp_path: Path) -> None:
    (tmp_path / "local.py").write_text(
        textwrap.dedent(
            """
            import torch

            DEVICE = "cuda:0"

            def device():
                return DEVICE

            def zeros(n, DEVICE):
                return torch.zeros(n).to(device()), torch.ones(n).to(DEVICE)
            """
        ),
        encoding="utf-8",
    )
    result = lint(LintOptions(paths=(tmp_path / "local.py",), select=("TCK201",), use_cache=False))
    assert sorted((d.location.row, d.location.column) for d in result.diagnostics) == [(10, 12)]
