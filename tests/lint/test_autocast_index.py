"""The project index's autocast flag: every spelling that may open an autocast region, the
files it is learned from without libcst, the findings a file decides alone, and warm runs
that re-answer TCK309's question about imported files from the cache."""

from __future__ import annotations

import textwrap
from pathlib import Path

import libcst
import pytest

from torchcheck.lint.api import LintOptions, lint
from torchcheck.lint.diagnostic import Diagnostic, Location
from torchcheck.lint.engine import lint_source
from torchcheck.lint.project import (
    AUTOCAST,
    NO,
    YES,
    Condition,
    DeferredFinding,
    ExportSummary,
    Fact,
    Symbol,
    imports_summary,
    settle_locally,
)
from torchcheck.rules.amp.scaler_without_autocast import ScalerWithoutAutocast


def autocast_flag(source: str) -> str | None:
    """The flag the shared walk records for ``source`` (linted with TCK309 enabled)."""
    result = lint_source(textwrap.dedent(source).encode(), "module.py", [ScalerWithoutAutocast])
    assert result.exports is not None
    fact = result.exports.facts.get(AUTOCAST)
    return fact.value if fact is not None else None


OPENS_AUTOCAST = {
    "torch.autocast": 'import torch\nwith torch.autocast("cuda"):\n    y = model(x)\n',
    "torch.amp.autocast": 'import torch\nwith torch.amp.autocast("cuda", enabled=use_amp):\n    y = model(x)\n',
    "torch.cuda.amp.autocast": "import torch\nwith torch.cuda.amp.autocast():\n    y = model(x)\n",
    "torch.cpu.amp.autocast": "import torch\nwith torch.cpu.amp.autocast(dtype=torch.bfloat16):\n    y = model(x)\n",
    "from torch import autocast": 'from torch import autocast\nwith autocast("cuda"):\n    y = model(x)\n',
    "accelerator.autocast()": "with accelerator.autocast():\n    y = model(x)\n",
    "a decorator": 'import torch\n@torch.autocast("cuda")\ndef forward(x):\n    return x\n',
    "a bare decorator": "from torch.cuda.amp import autocast\n@autocast\ndef forward(x):\n    return x\n",
    "kept in a variable": 'import torch\nctx = torch.autocast("cuda")\nwith ctx:\n    y = model(x)\n',
    "nullcontext or autocast": (
        "import contextlib, torch\n"
        'ctx = contextlib.nullcontext() if device == "cpu" else torch.amp.autocast(device_type="cuda")\n'
    ),
    "partial(torch.autocast)": (
        'from functools import partial\nimport torch\namp_autocast = partial(torch.autocast, device_type="cuda")\n'
    ),
    "the class kept in a name": "import torch\namp_autocast = torch.cuda.amp.autocast\n",
    "a wrapped forward": 'import torch\nmodel.forward = torch.autocast("cuda")(model.forward)\n',
    "a parameter named for it": "def train(model, amp_autocast):\n    with amp_autocast():\n        return model(x)\n",
    "set_autocast_enabled": "import torch\ntorch.set_autocast_enabled(True)\n",
    "FSDP MixedPrecision": (
        "from torch.distributed.fsdp import MixedPrecision\npolicy = MixedPrecision(param_dtype=torch.float16)\n"
    ),
    "a framework import": "from accelerate import Accelerator\naccelerator = Accelerator()\n",
    "a framework imported in a function": "def main():\n    import lightning as L\n    return L.Trainer()\n",
    "apex's amp": "from apex import amp\nmodel, optimizer = amp.initialize(model, optimizer)\n",
}
OPENS_NOTHING = {
    "an unused import": "from torch.cuda.amp import GradScaler, autocast\nscaler = GradScaler()\n",
    "a query": "import torch\nif torch.is_autocast_enabled():\n    print('on')\n",
    "a comment": "import torch\n# no autocast here\ny = model(x)\n",
    "nothing": "import torch\ny = model(x)\n",
    "apex's fused optimizers": "from apex.optimizers import FusedAdam\noptimizer = FusedAdam(params)\n",
}


@pytest.mark.parametrize("source", OPENS_AUTOCAST.values(), ids=OPENS_AUTOCAST.keys())
def test_every_spelling_of_autocast_flags_the_module(source: str) -> None:
    assert autocast_flag(source) == YES


@pytest.mark.parametrize("source", OPENS_NOTHING.values(), ids=OPENS_NOTHING.keys())
def test_imports_queries_and_comments_do_not_flag_the_module(source: str) -> None:
    assert autocast_flag(source) == NO


def test_a_file_read_without_libcst_is_flagged_only_where_its_text_decides() -> None:
    assert imports_summary("import numpy as np\n").facts[AUTOCAST].value == NO
    assert imports_summary("from apex.optimizers import FusedAdam\n").facts[AUTOCAST].value == NO
    assert imports_summary("from apex import amp\n").facts[AUTOCAST].value == YES
    assert imports_summary("from lightning.fabric import Fabric\n").facts[AUTOCAST] == Fact(
        YES, 1, "`from lightning.fabric import Fabric`"
    )
    assert AUTOCAST not in imports_summary("import torch\nctx = torch.autocast('cuda')\n").facts  # unknown


# ----------------------------------------------------------------------------- one file


def finding_on(*conditions: Condition) -> DeferredFinding:
    diagnostic = Diagnostic("train.py", "TCK309", "scaler-without-autocast", "m", Location(3, 10), Location(3, 30))
    return DeferredFinding(diagnostic, conditions)


THIS_FILE = Symbol(None, "")
NO_AUTOCAST = (Condition(THIS_FILE, f"module:{AUTOCAST}", NO), Condition(THIS_FILE, f"imports:{AUTOCAST}", NO))
FLAG_NO = {AUTOCAST: Fact(NO, 0, "")}


def test_a_file_importing_only_the_standard_library_and_torch_decides_its_imports_alone() -> None:
    exports = ExportSummary(modules=(Symbol("torch.nn", ""), Symbol("argparse", "")), facts=FLAG_NO)
    standing, waiting = settle_locally("train.py", exports, [finding_on(*NO_AUTOCAST)])
    assert len(standing) == 1 and waiting == []


def test_a_file_importing_a_possible_project_module_waits_for_the_project() -> None:
    exports = ExportSummary(modules=(Symbol("torch", ""), Symbol("engine", "train")), facts=FLAG_NO)
    finding = finding_on(*NO_AUTOCAST)
    assert settle_locally("train.py", exports, [finding]) == ([], [finding])
    relative = ExportSummary(modules=(Symbol("", "utils", 1),), facts=FLAG_NO)
    assert settle_locally("train.py", relative, [finding]) == ([], [finding])


def test_a_finding_its_own_file_rules_out_is_dropped_without_waiting() -> None:
    exports = ExportSummary(modules=(Symbol("engine", "train"),), facts={AUTOCAST: Fact(YES, 4, "`torch.autocast()`")})
    assert settle_locally("train.py", exports, [finding_on(*NO_AUTOCAST)]) == ([], [])


# ----------------------------------------------------------------------------- warm runs

AMP_UTILS = """
# amp_utils.py
import contextlib

import torch

def mixed_precision(enabled):
    return torch.autocast("cuda", enabled=enabled)
"""
AMP_UTILS_WITHOUT_AUTOCAST = AMP_UTILS.replace('torch.autocast("cuda", enabled=enabled)', "contextlib.nullcontext()")
ENGINE = """
# engine.py
from amp_utils import mixed_precision

def forward_loss(model, x, y):
    with mixed_precision(True):
        return model(x, y)
"""
TRAIN = """
# train.py
import torch
from engine import forward_loss

scaler = torch.amp.GradScaler("cuda")

def train(model, loader, optimizer):
    for x, y in loader:
        optimizer.zero_grad()
        loss = forward_loss(model, x, y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
"""
UNRELATED = """
# unrelated.py
import torch

def helper(x):
    with torch.autocast("cpu"):
        return x * 2
"""


def write(path: Path, text: str) -> None:
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")


@pytest.fixture
def amp_project(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    for name, text in {"amp_utils.py": AMP_UTILS, "engine.py": ENGINE, "train.py": TRAIN, "unrelated.py": UNRELATED}.items():
        write(tmp_path / name, text)
    return tmp_path


@pytest.fixture
def parsed(monkeypatch) -> list[str]:
    """The files libcst parses, by the name in their first line (below 8 files the linter
    runs in this process)."""
    names: list[str] = []
    original = libcst.parse_module

    def counting(source, *args, **kwargs):
        text = source.decode() if isinstance(source, bytes) else source
        names.append(text.split("\n", 1)[0].lstrip("# "))
        return original(source, *args, **kwargs)

    monkeypatch.setattr(libcst, "parse_module", counting)
    return names


def findings_of(**extra) -> list[tuple[str, int, str]]:
    result = lint(LintOptions(paths=(Path("."),), jobs=1, extend_select=("TCK309",), **extra))
    return sorted((d.filename, d.location.row, d.code) for d in result.diagnostics)


def test_autocast_two_imports_away_keeps_the_scaler_silent(amp_project: Path) -> None:
    assert findings_of(use_cache=False) == []


def test_editing_a_transitively_imported_file_re_lints_only_that_file(amp_project: Path, parsed: list[str]) -> None:
    assert findings_of() == []
    assert sorted(parsed) == ["amp_utils.py", "train.py", "unrelated.py"]  # engine.py is read by Python's parser

    parsed.clear()
    write(amp_project / "amp_utils.py", AMP_UTILS_WITHOUT_AUTOCAST)
    assert findings_of() == [("train.py", 5, "TCK309")]  # train.py's conditions answered again from the cache
    assert parsed == ["amp_utils.py"]

    parsed.clear()
    write(amp_project / "amp_utils.py", AMP_UTILS)
    assert findings_of() == []
    assert parsed == []  # both versions of amp_utils.py are cached


def test_an_import_cycle_without_autocast_is_walked_once_and_reported(amp_project: Path) -> None:
    cyclic = ENGINE.replace("from amp_utils import mixed_precision", "import train\nmixed_precision = None")
    write(amp_project / "engine.py", cyclic)
    assert findings_of(use_cache=False) == [("train.py", 5, "TCK309")]


def test_a_project_module_that_cannot_be_read_keeps_the_scaler_silent(amp_project: Path) -> None:
    (amp_project / "amp_utils.py").write_bytes(b"\xff\xfe not python")
    assert [code for _, _, code in findings_of(use_cache=False)] == ["TCK000"]  # amp_utils.py itself


def test_linting_one_file_follows_a_long_import_chain_to_its_autocast(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "amp_utils.py", AMP_UTILS)
    chain = ["amp_utils", *(f"layer{depth}" for depth in range(8))]
    for imported, module in zip(chain, chain[1:]):
        write(tmp_path / f"{module}.py", f"import {imported}\n")
    write(tmp_path / "train.py", TRAIN.replace("from engine import forward_loss", f"import {chain[-1]}\nfrom engine import forward_loss"))
    write(tmp_path / "engine.py", "def forward_loss(model, x, y):\n    return model(x, y)\n")

    alone = lint(LintOptions(paths=(Path("train.py"),), jobs=1, use_cache=False, extend_select=("TCK309",)))
    assert alone.diagnostics == ()
    write(tmp_path / "amp_utils.py", AMP_UTILS_WITHOUT_AUTOCAST)
    alone = lint(LintOptions(paths=(Path("train.py"),), jobs=1, use_cache=False, extend_select=("TCK309",)))
    assert [(d.location.row, d.code) for d in alone.diagnostics] == [(6, "TCK309")]
