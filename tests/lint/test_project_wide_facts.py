"""Project-wide facts that TCK606 asks about: the attributes that some `_apply` override of
the project moves by name, and the settings its configuration defaults make numbers."""

from __future__ import annotations

import textwrap
from pathlib import Path

from torchcheck.lint.api import LintOptions, lint
from torchcheck.lint.engine import lint_source
from torchcheck.lint.project import (
    MOVED_BY_APPLY,
    NO,
    NUMBER_SETTINGS,
    PROJECT,
    YES,
    Condition,
    ExportSummary,
    Fact,
    IndexedFile,
    ProjectIndex,
    Symbol,
    imports_summary,
)
from torchcheck.lint.registry import rules_by_code

HEAD = """
import torch
from torch import nn

from utils import channels

class Detect(nn.Module):
    def __init__(self, levels):
        super().__init__()
        self.stride = torch.zeros(levels)
        self.offsets = torch.arange(channels(levels))

    def forward(self, x):
        return (x + self.offsets) * self.stride
"""
MODEL = """
from torch import nn

from head import Detect

class DetectionModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = nn.ModuleList([Detect(3)])

    def _apply(self, fn):
        self = super()._apply(fn)
        head = self.model[-1]
        head.stride = fn(head.stride)
        return self
"""
UTILS = """
def channels(levels):
    return levels * 2
"""


def write(path: Path, text: str) -> None:
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")


def findings(root: Path, **options) -> list[tuple[str, int, str]]:
    result = lint(LintOptions(paths=(root,), select=("TCK606",), **options))
    return sorted((Path(d.filename).name, d.location.row, d.code) for d in result.diagnostics)


def project(root: Path) -> Path:
    write(root / "head.py", HEAD)
    write(root / "model.py", MODEL)
    write(root / "utils.py", UTILS)
    return root


def test_a_tensor_moved_by_an_apply_override_of_another_file_is_not_reported(tmp_path: Path) -> None:
    assert findings(project(tmp_path), use_cache=False, jobs=1) == [("head.py", 10, "TCK606")]


def test_without_the_override_both_tensors_are_reported(tmp_path: Path) -> None:
    project(tmp_path)
    write(tmp_path / "model.py", MODEL.replace("head.stride = fn(head.stride)", "pass"))
    assert findings(tmp_path, use_cache=False, jobs=1) == [("head.py", 9, "TCK606"), ("head.py", 10, "TCK606")]


def test_editing_the_override_changes_the_cached_verdict_on_the_other_file(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(project(tmp_path))
    assert findings(Path("."), jobs=1) == [("head.py", 10, "TCK606")]
    write(tmp_path / "model.py", MODEL.replace("head.stride = fn(head.stride)", "pass"))
    assert findings(Path("."), jobs=1) == [("head.py", 9, "TCK606"), ("head.py", 10, "TCK606")]
    write(tmp_path / "model.py", MODEL)
    assert findings(Path("."), jobs=1) == [("head.py", 10, "TCK606")]


def test_the_export_summary_lists_the_attributes_an_apply_override_moves() -> None:
    exports = lint_source(textwrap.dedent(MODEL).lstrip().encode(), "model.py", rules_by_code(["TCK606"])).exports
    assert exports is not None
    fact = exports.facts[MOVED_BY_APPLY]
    assert (fact.value, fact.line) == ("stride", 10)


def test_a_project_fact_holds_when_a_file_of_the_same_project_lists_the_item() -> None:
    moving = ExportSummary(facts={MOVED_BY_APPLY: Fact("anchors,stride", 7, "an `_apply` override")})
    files = {
        "/p/model.py": IndexedFile("model.py", moving),
        "/p/head.py": IndexedFile("head.py", ExportSummary()),
        "/q/other.py": IndexedFile("other.py", ExportSummary(facts={MOVED_BY_APPLY: Fact("grid", 3, "an `_apply` override")})),
    }
    index = ProjectIndex(files, lambda importer, module, level: None)
    here = Symbol(None, "")
    stride = index.answer("/p/head.py", Condition(here, f"{PROJECT}:{MOVED_BY_APPLY}:stride", NO))
    grid = index.answer("/p/head.py", Condition(here, f"{PROJECT}:{MOVED_BY_APPLY}:grid", NO))
    assert stride is not None and (stride.value, stride.place) == (YES, "an `_apply` override at model.py:7")
    assert grid is not None and grid.value == NO  # /q is another project of the same run


HEAD_OF_SETTINGS = """
import torch
from torch import nn

from defaults import add_head_config

class Head(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        add_head_config(cfg)
        self.pos_weight = torch.tensor(cfg.MODEL.HEAD.POS_WEIGHT)
        self.mean = torch.tensor(cfg.MODEL.HEAD.MEAN)

    def forward(self, x):
        return (x - self.mean) * self.pos_weight
"""
DEFAULTS = """
def add_head_config(cfg):
    cfg.MODEL.HEAD.POS_WEIGHT = 1.5
    cfg.MODEL.HEAD.MEAN = [0.5, 0.5, 0.5]
"""


def test_a_tensor_of_a_setting_the_projects_defaults_make_a_number_is_not_reported(tmp_path: Path) -> None:
    write(tmp_path / "head.py", HEAD_OF_SETTINGS)
    write(tmp_path / "defaults.py", DEFAULTS)
    assert findings(tmp_path, use_cache=False, jobs=1) == [("head.py", 11, "TCK606")]
    write(tmp_path / "defaults.py", DEFAULTS.replace("POS_WEIGHT = 1.5", "POS_WEIGHT = [1.5]"))
    assert findings(tmp_path, use_cache=False, jobs=1) == [("head.py", 10, "TCK606"), ("head.py", 11, "TCK606")]


def test_a_configuration_module_no_rule_parses_still_lists_its_number_settings() -> None:
    summary = imports_summary(textwrap.dedent(DEFAULTS).lstrip())
    assert summary is not None
    fact = summary.facts[NUMBER_SETTINGS]
    assert (fact.value, fact.line) == ("MODEL.HEAD.POS_WEIGHT", 2)
