"""The project index: module resolution, re-exports, conditions, deferred findings, the cache
round trip, and runs that re-lint only what changed."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import libcst
import pytest

from torchcheck.lint.api import LintOptions, lint
from torchcheck.lint.diagnostic import Diagnostic, Location
from torchcheck.lint.project import (
    PLACE,
    CallShape,
    Condition,
    DeferredFinding,
    Definition,
    ExportSummary,
    Fact,
    IndexedFile,
    ModuleLocator,
    ProjectIndex,
    Symbol,
    imports_summary,
)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return path


def touch(root: Path, *names: str) -> None:
    for name in names:
        write(root / name, "")


def key(path: Path) -> str:
    return path.as_posix()


# ----------------------------------------------------------------------------- module resolution


def test_a_script_imports_its_sibling_module_by_name(tmp_path: Path) -> None:
    touch(tmp_path, "scripts/train.py", "scripts/model.py")
    locate = ModuleLocator(tmp_path)
    assert locate(key(tmp_path / "scripts/train.py"), "model", 0) == key(tmp_path / "scripts/model.py")


def test_absolute_imports_resolve_below_the_package_root_and_the_project_root(tmp_path: Path) -> None:
    touch(tmp_path, "pkg/__init__.py", "pkg/engine.py", "pkg/models/__init__.py", "pkg/models/net.py", "tools/run.py")
    locate = ModuleLocator(tmp_path)
    engine = key(tmp_path / "pkg/engine.py")
    assert locate(engine, "pkg.models.net", 0) == key(tmp_path / "pkg/models/net.py")
    assert locate(engine, "pkg.models", 0) == key(tmp_path / "pkg/models/__init__.py")
    assert locate(key(tmp_path / "tools/run.py"), "pkg.engine", 0) == engine


def test_relative_imports_start_at_the_importing_files_package(tmp_path: Path) -> None:
    touch(tmp_path, "pkg/__init__.py", "pkg/utils.py", "pkg/train/__init__.py", "pkg/train/loop.py")
    locate = ModuleLocator(tmp_path)
    loop = key(tmp_path / "pkg/train/loop.py")
    assert locate(loop, "", 1) == key(tmp_path / "pkg/train/__init__.py")
    assert locate(loop, "utils", 2) == key(tmp_path / "pkg/utils.py")
    assert locate(loop, "", 2) == key(tmp_path / "pkg/__init__.py")


def test_a_src_layout_package_resolves_from_anywhere_in_the_project(tmp_path: Path) -> None:
    touch(tmp_path, "src/lib/__init__.py", "src/lib/model.py", "scripts/train.py")
    locate = ModuleLocator(tmp_path)
    assert locate(key(tmp_path / "scripts/train.py"), "lib.model", 0) == key(tmp_path / "src/lib/model.py")


def test_a_namespace_package_in_a_nested_src_folder_resolves_from_its_own_modules(tmp_path: Path) -> None:
    """``service/src/lib/model.py`` importing ``lib.images`` (no ``__init__.py`` files): the
    sub-project's ``src/`` is what Python would have on its path, nearest folder first."""
    touch(tmp_path, "service/src/lib/model.py", "service/src/lib/images.py", "lib/images.py")
    locate = ModuleLocator(tmp_path)
    model = key(tmp_path / "service/src/lib/model.py")
    assert locate(model, "lib.images", 0) == key(tmp_path / "service/src/lib/images.py")


def test_modules_outside_the_project_root_are_never_found(tmp_path: Path) -> None:
    touch(tmp_path, "outside/model.py", "project/train.py")
    locate = ModuleLocator(tmp_path / "project")
    train = key(tmp_path / "project/train.py")
    assert locate(train, "model", 0) is None
    assert locate(train, "model", 2) is None  # `from ..model import x` climbs out of the root


# ----------------------------------------------------------------------------- symbols and facts

SOFTMAX_NET = Definition("class", 3, {"instance_output": Fact("softmax", 7, "`F.softmax(x, dim=1)` in `Net`")})


def index_of(tmp_path: Path, files: dict[str, ExportSummary]) -> ProjectIndex:
    for name in files:
        touch(tmp_path, name)
    indexed = {key(tmp_path / name): IndexedFile(name, exports) for name, exports in files.items()}
    return ProjectIndex(indexed, ModuleLocator(tmp_path))


def test_a_name_re_exported_by_a_packages_init_resolves_to_its_definition(tmp_path: Path) -> None:
    index = index_of(
        tmp_path,
        {
            "pkg/__init__.py": ExportSummary(imports={"Net": Symbol("model", "Net", level=1)}),
            "pkg/model.py": ExportSummary(definitions={"Net": SOFTMAX_NET}),
            "train.py": ExportSummary(),
        },
    )
    train = key(tmp_path / "train.py")
    answer = index.answer(train, Condition(Symbol("pkg", "Net"), "instance_output", "softmax"))
    assert answer is not None and answer.value == "softmax"
    assert answer.place == "`F.softmax(x, dim=1)` in `Net` at pkg/model.py:7"


def test_a_submodule_imported_from_its_package_resolves(tmp_path: Path) -> None:
    index = index_of(tmp_path, {"pkg/__init__.py": ExportSummary(), "pkg/model.py": ExportSummary(definitions={"Net": SOFTMAX_NET}), "pkg/train.py": ExportSummary()})
    # `from . import model` then `model.Net(...)`
    target = index.target(key(tmp_path / "pkg/train.py"), Symbol("", "model.Net", level=1))
    assert target is not None and target.definition == SOFTMAX_NET


def test_re_exports_that_import_each_other_resolve_to_nothing(tmp_path: Path) -> None:
    index = index_of(
        tmp_path,
        {"a.py": ExportSummary(imports={"x": Symbol("b", "x")}), "b.py": ExportSummary(imports={"x": Symbol("a", "x")})},
    )
    assert index.target(key(tmp_path / "a.py"), Symbol("b", "x")) is None


def test_a_module_the_index_does_not_hold_is_reported_missing_and_answers_nothing(tmp_path: Path) -> None:
    touch(tmp_path, "model.py")
    index = index_of(tmp_path, {"train.py": ExportSummary()})
    assert index.answer(key(tmp_path / "train.py"), Condition(Symbol("model", "Net"), "instance_output", "softmax")) is None
    assert index.missing == {key(tmp_path / "model.py")}


def test_third_party_names_answer_nothing(tmp_path: Path) -> None:
    index = index_of(tmp_path, {"train.py": ExportSummary()})
    assert index.answer(key(tmp_path / "train.py"), Condition(Symbol("torchvision.models", "resnet50"), "output", "softmax")) is None
    assert not index.missing


EVALUATE = {
    "name": "evaluate",
    "parameters": [
        {"name": "net", "kind": "positional", "has_default": False},
        {"name": "loader", "kind": "positional", "has_default": False},
        {"name": "device", "kind": "keyword-only", "has_default": True},
    ],
    "binds_first": False,
    "effects": [
        {"action": "eval", "target": "net", "certainty": "must", "site": {"function": "evaluate", "code": "net.eval()", "line": 12}},
        {"action": "step", "target": "<value>", "certainty": "may", "site": {"function": "evaluate", "code": "opt.step()", "line": 15}},
    ],
    "exit_modes": [{"target": "net", "modes": ["eval", "unchanged"], "eval_site": {"function": "evaluate", "code": "net.eval()", "line": 12}}],
    "returns": {"kind": None, "probabilities": False, "non_contiguous": False},
}


@pytest.fixture
def helpers(tmp_path: Path) -> tuple[ProjectIndex, str]:
    index = index_of(
        tmp_path,
        {"utils.py": ExportSummary(definitions={"evaluate": Definition("function", 10, summary=EVALUATE)}), "train.py": ExportSummary()},
    )
    return index, key(tmp_path / "train.py")


def test_a_helpers_effect_on_a_parameter_is_spelled_as_the_caller_passes_it(helpers: tuple[ProjectIndex, str]) -> None:
    index, train = helpers
    call = CallShape(positional=("model", "val_loader"))
    answer = index.answer(train, Condition(Symbol("utils", "evaluate"), "effect:eval:model", "must", call))
    assert answer is not None and answer.value == "must"
    assert answer.place == "`net.eval()` in `evaluate()` at utils.py:12"
    by_keyword = CallShape(keywords=(("loader", "val_loader"), ("net", "ema.module")))
    assert index.answer(train, Condition(Symbol("utils", "evaluate"), "effect:eval:ema.module", "must", by_keyword)).value == "must"


def test_certainty_conditions_are_lower_bounds(helpers: tuple[ProjectIndex, str]) -> None:
    index, train = helpers
    call = CallShape(positional=("model", "loader"))
    evaluate = Symbol("utils", "evaluate")
    finding = DeferredFinding(Diagnostic("train.py", "TCK106", "n", "m", Location(1, 1), Location(1, 2)), ())
    holds = lambda condition: index.resolve(train, DeferredFinding(finding.diagnostic, (condition,))) is not None  # noqa: E731
    assert holds(Condition(evaluate, "leaves_eval:model", "may", call))
    assert not holds(Condition(evaluate, "leaves_eval:model", "must", call))  # one exit leaves it as it was
    assert holds(Condition(evaluate, "effect:eval:model", "may", call))
    assert holds(Condition(evaluate, "effect:step:model", "none", call))
    assert holds(Condition(evaluate, "does:backward,step", "may"))
    assert not holds(Condition(evaluate, "does:backward", "may"))


def test_a_call_whose_arguments_cannot_be_mapped_answers_nothing(helpers: tuple[ProjectIndex, str]) -> None:
    index, train = helpers
    evaluate = Symbol("utils", "evaluate")
    for call in (CallShape(opaque=True), CallShape(positional=("model",)), CallShape(positional=("m", "l"), keywords=(("other", "x"),))):
        assert index.answer(train, Condition(evaluate, "effect:step:model", "none", call)) is None


def test_a_deferred_finding_names_the_place_its_first_condition_found(tmp_path: Path) -> None:
    index = index_of(tmp_path, {"model.py": ExportSummary(definitions={"Net": SOFTMAX_NET}), "train.py": ExportSummary()})
    diagnostic = Diagnostic("train.py", "TCK605", "activation-before-logits-loss", f"softmax output ({PLACE})", Location(4, 5), Location(4, 20))
    finding = DeferredFinding(diagnostic, (Condition(Symbol("model", "Net"), "instance_output", "softmax"),))
    resolved = index.resolve(key(tmp_path / "train.py"), finding)
    assert resolved is not None and resolved.message == "softmax output (`F.softmax(x, dim=1)` in `Net` at model.py:7)"
    logits = DeferredFinding(diagnostic, (Condition(Symbol("model", "Net"), "instance_output", "sigmoid"),))
    assert index.resolve(key(tmp_path / "train.py"), logits) is None


def test_a_flag_in_any_module_imported_transitively_is_found(tmp_path: Path) -> None:
    amp = {"autocast": Fact("yes", 8, "`torch.autocast(\"cuda\")`")}
    index = index_of(
        tmp_path,
        {
            "train.py": ExportSummary(modules=(Symbol("engine", ""),)),
            "engine.py": ExportSummary(modules=(Symbol("", "amp_utils", 1),), facts={"autocast": Fact("no", 0, "")}),
            "amp_utils.py": ExportSummary(facts=amp),
        },
    )
    answer = index.answer(key(tmp_path / "train.py"), Condition(Symbol(None, ""), "imports:autocast", "yes"))
    assert answer is not None and answer.place == '`torch.autocast("cuda")` at amp_utils.py:8'


def test_summaries_and_deferred_findings_survive_a_json_round_trip() -> None:
    summary = ExportSummary(
        definitions={"Net": SOFTMAX_NET, "evaluate": Definition("function", 10, summary=EVALUATE)},
        imports={"utils": Symbol("", "utils", 1)},
        modules=(Symbol("torch", ""),),
        facts={"set_epoch": Fact("no", 0, "")},
    )
    assert ExportSummary.from_dict(json.loads(json.dumps(summary.to_dict()))) == summary
    diagnostic = Diagnostic("train.py", "TCK104", "n", f"m {PLACE}", Location(3, 1), Location(3, 9))
    finding = DeferredFinding(diagnostic, (Condition(Symbol("engine", "train"), "effect:step:opt", "may", CallShape(("m", None), (("opt", "opt"),))),))
    assert DeferredFinding.from_dict(json.loads(json.dumps(finding.to_dict()))) == finding


def test_a_file_no_rule_parses_still_offers_its_re_exports() -> None:
    summary = imports_summary("from .model import Net as Model\nimport pkg.utils\nfrom . import *\n")
    assert summary is not None
    assert summary.imports == {"Model": Symbol("model", "Net", 1), "pkg": Symbol("pkg", "")}
    assert summary.facts["set_epoch"].value == "no"
    assert imports_summary("def broken(:\n") is None


# ----------------------------------------------------------------------------- corpus projects

PROJECTS = Path(__file__).resolve().parents[2] / "fixtures" / "lint" / "projects"


def expected_in_project(project: Path) -> list[tuple[str, int, str]]:
    from tests.rules.examples import expected_findings

    return sorted(
        (path.relative_to(project).as_posix(), row, code)
        for path in project.rglob("*.py")
        for row, code in expected_findings(path.read_text(encoding="utf-8"))
    )


@pytest.mark.parametrize("project", sorted(p for p in PROJECTS.iterdir() if p.is_dir()), ids=lambda p: p.name)
def test_corpus_project_reports_exactly_the_marked_lines_across_its_files(project: Path, monkeypatch) -> None:
    monkeypatch.chdir(project)
    own = project.name.split("_", 1)[0]
    result = lint(LintOptions(paths=(Path("."),), use_cache=False, extend_select=(own,)))
    found = sorted((d.filename, d.location.row, d.code) for d in result.diagnostics)
    assert found == expected_in_project(project)
    assert any(code == own for _, _, code in found)


@pytest.mark.parametrize("project", sorted(p for p in PROJECTS.iterdir() if p.is_dir()), ids=lambda p: p.name)
def test_a_project_rule_selected_alone_finds_what_it_finds_among_all_rules(project: Path, monkeypatch) -> None:
    """Files that no selected rule parses are still summarised for the project, so a helper
    file without the rule's own trigger text still answers the rule's cross-file question."""
    monkeypatch.chdir(project)
    own = project.name.split("_", 1)[0]
    alone = lint(LintOptions(paths=(Path("."),), use_cache=False, select=(own,)))
    found = sorted((d.filename, d.location.row, d.code) for d in alone.diagnostics)
    assert found == [marked for marked in expected_in_project(project) if marked[2] == own]


# ----------------------------------------------------------------------------- runs and the cache

MODEL = """
import torch.nn.functional as F
from torch import nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return F.softmax(self.fc(x), dim=1)
"""
LOGITS_MODEL = MODEL.replace("return F.softmax(self.fc(x), dim=1)", "return self.fc(x)")
TRAIN = """
from torch import nn
from model import Net

def step(x, y):
    return nn.CrossEntropyLoss()(Net()(x), y)
"""
UNRELATED = """
import torch

def scale(x):
    return torch.nn.functional.softmax(x, dim=0) * 2
"""


@pytest.fixture
def small_project(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "model.py", MODEL)
    write(tmp_path / "train.py", TRAIN)
    write(tmp_path / "unrelated.py", UNRELATED)
    return tmp_path


class ParseCounter:
    """Counts the files libcst parses (the linter runs in this process below 8 files)."""

    def __init__(self, monkeypatch) -> None:
        self.parsed: list[str] = []
        original = libcst.parse_module

        def counting(source, *args, **kwargs):
            text = source.decode() if isinstance(source, bytes) else source
            self.parsed.append("model.py" if "class Net" in text else "train.py" if "def step" in text else "other")
            return original(source, *args, **kwargs)

        monkeypatch.setattr(libcst, "parse_module", counting)


def codes(result) -> list[tuple[str, int, str]]:
    return sorted((d.filename, d.location.row, d.code) for d in result.diagnostics)


def test_editing_the_imported_file_re_lints_only_that_file(small_project: Path, monkeypatch) -> None:
    counter = ParseCounter(monkeypatch)
    first = lint(LintOptions(paths=(Path("."),), jobs=1))
    assert codes(first) == [("train.py", 5, "TCK605")]
    assert sorted(counter.parsed) == ["model.py", "other", "train.py"]
    assert "(softmax applied by `F.softmax(self.fc(x), dim=1)` in `Net` at model.py:10)" in first.diagnostics[0].message

    counter.parsed.clear()
    write(small_project / "model.py", LOGITS_MODEL)
    second = lint(LintOptions(paths=(Path("."),), jobs=1))
    assert codes(second) == []  # train.py's question answered again from its cached conditions
    assert counter.parsed == ["model.py"]

    counter.parsed.clear()
    write(small_project / "model.py", MODEL)
    assert codes(lint(LintOptions(paths=(Path("."),), jobs=1))) == [("train.py", 5, "TCK605")]
    assert counter.parsed == []  # both versions of model.py are in the cache


def test_linting_one_file_reads_the_files_it_imports_from_the_project(small_project: Path, monkeypatch) -> None:
    counter = ParseCounter(monkeypatch)
    assert codes(lint(LintOptions(paths=(Path("train.py"),), jobs=1))) == [("train.py", 5, "TCK605")]
    assert sorted(counter.parsed) == ["model.py", "train.py"]  # model.py summarised, not the unrelated file
    counter.parsed.clear()
    assert codes(lint(LintOptions(paths=(Path("train.py"),), jobs=1))) == [("train.py", 5, "TCK605")]
    assert counter.parsed == []
    assert codes(lint(LintOptions(paths=(Path("train.py"),), use_cache=False, jobs=1))) == [("train.py", 5, "TCK605")]


def test_cross_file_findings_are_the_same_serially_and_in_worker_processes(tmp_path: Path) -> None:
    for index in range(10):
        write(tmp_path / f"model{index}.py", MODEL)
        write(tmp_path / f"train{index}.py", TRAIN.replace("from model import", f"from model{index} import"))
    serial = lint(LintOptions(paths=(tmp_path,), use_cache=False, jobs=1)).diagnostics
    parallel = lint(LintOptions(paths=(tmp_path,), use_cache=False, jobs=2)).diagnostics
    assert serial == parallel and len(serial) == 10


def test_a_cross_file_finding_can_be_suppressed_where_it_is_reported(small_project: Path) -> None:
    write(small_project / "train.py", TRAIN.replace("(Net()(x), y)", "(Net()(x), y)  # noqa: TCK605"))
    assert codes(lint(LintOptions(paths=(Path("."),), use_cache=False))) == []


def test_add_noqa_suppresses_cross_file_findings_too(small_project: Path) -> None:
    result = lint(LintOptions(paths=(Path("."),), use_cache=False, add_noqa=True))
    assert result.noqa_added == 1
    assert "# noqa: TCK605" in (small_project / "train.py").read_text()
    assert codes(lint(LintOptions(paths=(Path("."),), use_cache=False))) == []


def test_absence_holds_for_a_library_function_but_not_for_an_unknown_project_name(tmp_path: Path) -> None:
    index = index_of(tmp_path, {"train.py": ExportSummary(), "utils.py": ExportSummary()})
    train = key(tmp_path / "train.py")
    call = CallShape(positional=("model",))
    assert index.answer(train, Condition(Symbol("wandb", "watch"), "effect:train:model", "none", call)) is not None
    assert index.answer(train, Condition(Symbol("wandb", "watch"), "effect:train:model", "may", call)) is None
    assert index.answer(train, Condition(Symbol("utils", "missing"), "effect:train:model", "none", call)) is None
