"""``from <project module> import *`` binds what that module binds: ``nn`` and ``F`` taken
from torch there, and the module's own classes, which the project index follows."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from torchcheck.lint.api import LintOptions, lint
from torchcheck.lint.stars import StarImports

COMMON = """
import torch
import torch.nn.functional as F
from torch import nn

__version__ = "1"

class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

class Scale(nn.Module):
    def __init__(self, factor):
        super().__init__()
        self.factor = factor

def _private():
    pass
"""

MODEL = """
from layers.common import *

class Net(nn.Module):
    def __init__(self, sizes):
        super().__init__()
        self.blocks = [Block(size) for size in sizes]
        self.heads = [nn.Linear(size, 2) for size in sizes]
        self.scales = [Scale(2.0) for _ in sizes]

    def forward(self, x):
        return F.softmax(x)
"""


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


def _findings(root: Path, *codes: str) -> list[tuple[str, int, str]]:
    result = lint(LintOptions(paths=(root,), select=codes, use_cache=False))
    return sorted((Path(d.filename).name, d.location.row, d.code) for d in result.diagnostics)


def test_names_a_star_import_binds_come_from_the_module_it_reads(tmp_path: Path) -> None:
    _write(tmp_path, {"layers/__init__.py": "", "layers/common.py": COMMON, "model.py": MODEL})
    # `Block` holds a Linear: its list is reported through the index; `nn.Linear` through
    # `nn` bound to torch.nn; `Scale` holds no state and its list is left alone
    assert _findings(tmp_path, "TCK601", "TCK608") == [("model.py", 7, "TCK601"), ("model.py", 8, "TCK601"), ("model.py", 12, "TCK608")]


def test_without_the_star_imported_module_nothing_is_known(tmp_path: Path) -> None:
    _write(tmp_path, {"model.py": MODEL})
    assert _findings(tmp_path, "TCK601", "TCK608") == []


def test_a_package_that_re_exports_through_a_star_import_is_followed(tmp_path: Path) -> None:
    main = """
    from torch import nn
    from layers import Block

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = [Block(4), Block(8)]
    """
    _write(tmp_path, {"layers/__init__.py": "from .common import *\n", "layers/common.py": COMMON, "main.py": main})
    assert _findings(tmp_path, "TCK601") == [("main.py", 8, "TCK601")]


@pytest.mark.parametrize(
    ("module", "expected"),
    [
        ('__all__ = ["Block"]\nfrom torch import nn\nclass Block(nn.Module): pass\n', [("Block", "")]),
        ("from torch import nn as torch_nn\nimport torch.nn.functional as F\n", [("F", "torch.nn.functional"), ("torch_nn", "torch.nn")]),
        ("from .inner import *\n", [("deep", ""), ("nn", "torch.nn")]),
        ("import os\ntry:\n    from apex import amp\nexcept ImportError:\n    amp = None\n", [("amp", ""), ("os", "os")]),
        ("def broken(:\n", []),
    ],
)
def test_what_a_star_import_binds(tmp_path: Path, module: str, expected: list[tuple[str, str]]) -> None:
    _write(tmp_path, {"pkg/__init__.py": "", "pkg/mod.py": module, "pkg/inner.py": "import torch.nn as nn\ndeep = 1\n", "main.py": ""})
    files = {str(tmp_path / "pkg" / "mod.py"), str(tmp_path / "pkg" / "inner.py")}

    def locate(importer: str, module: str, level: int) -> str | None:
        name = str(tmp_path / "pkg" / f"{module.rpartition('.')[2]}.py")
        return name if name in files else None

    reader = StarImports(locate, lambda path: Path(path).read_bytes())
    stars = reader.of(str(tmp_path / "main.py"), b"from pkg.mod import *\nmodel = build()\n")
    assert [(star.module, star.level) for star in stars] == [("pkg.mod", 0)]
    assert list(stars[0].names) == expected
    # a file of imports alone (a package's `__init__.py`) runs no code that could use them
    assert reader.of(str(tmp_path / "main.py"), b'"""Models."""\nfrom pkg.mod import *\n__all__ = ["deep"]\n') == ()


def test_a_star_import_of_a_module_outside_the_project_binds_nothing_known(tmp_path: Path) -> None:
    stars = StarImports(lambda importer, module, level: None, lambda path: None).of("main.py", b"from torch.nn import *\n")
    assert stars == ()


def test_a_cached_file_is_linted_again_when_what_its_star_import_binds_changes(tmp_path: Path) -> None:
    _write(tmp_path, {"layers/__init__.py": "", "layers/common.py": COMMON, "model.py": MODEL})
    cached = lambda: sorted((Path(d.filename).name, d.location.row) for d in lint(LintOptions(paths=(tmp_path,), select=("TCK601",))).diagnostics)
    assert cached() == [("model.py", 7), ("model.py", 8)]
    (tmp_path / "layers" / "common.py").write_text(textwrap.dedent(COMMON).replace("from torch import nn\n", "import torch.nn as nn\nnn = None\n"), encoding="utf-8")
    assert cached() == []  # `nn` is no longer torch's: nothing the file builds is known to be a module
