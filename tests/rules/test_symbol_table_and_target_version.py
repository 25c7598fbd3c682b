"""The table behind TCK901-TCK904/TCK907/TCK908 checked against the installed PyTorch, and
`target-version` gating of table rows and of whole rules."""

from __future__ import annotations

import importlib
import re
import warnings

import pytest

from torchcheck.lint.context import LintSettings
from torchcheck.lint.engine import lint_source
from torchcheck.lint.registry import all_rules, rule_by_selector
from torchcheck.rules.deprecations._symbols import symbols

torch = pytest.importorskip("torch")

_DOTTED = re.compile(r"^[A-Za-z_][\w.]*$")


def _resolve(qualified: str) -> object:
    """Attribute access first (``torch.nn.utils.weight_norm`` is a function that shares its
    name with a submodule), importing submodules only where attribute access fails."""
    parts = qualified.split(".")
    value = importlib.import_module(parts[0])
    for index, attribute in enumerate(parts[1:], start=2):
        try:
            value = getattr(value, attribute)
        except AttributeError:
            value = importlib.import_module(".".join(parts[:index]))
    return value


TORCH_ROWS = [symbol for symbol in symbols().values() if symbol.name.startswith("torch.")]


@pytest.mark.parametrize("symbol", TORCH_ROWS, ids=lambda symbol: symbol.name)
def test_every_listed_torch_name_exists_in_the_installed_pytorch(symbol) -> None:
    assert callable(_resolve(symbol.name))


@pytest.mark.parametrize("symbol", list(symbols().values()), ids=lambda symbol: symbol.name)
def test_every_code_replacement_exists_in_the_installed_pytorch(symbol) -> None:
    if not _DOTTED.match(symbol.replacement):
        assert not symbol.rename, "a rename needs a plain dotted replacement"
        return
    assert callable(_resolve(symbol.replacement))


@pytest.mark.parametrize(
    "symbol", [s for s in symbols().values() if s.status == "non-public"], ids=lambda symbol: symbol.name
)
def test_non_public_rows_name_the_same_object_as_their_public_alias(symbol) -> None:
    assert _resolve(symbol.name) is _resolve(symbol.replacement)


@pytest.mark.parametrize(
    "symbol", [s for s in TORCH_ROWS if s.status == "removed"], ids=lambda symbol: symbol.name
)
def test_removed_rows_really_raise_when_called(symbol) -> None:
    matrix = torch.eye(3) + 0.1
    with pytest.raises(RuntimeError, match="removed"):
        _resolve(symbol.name)(matrix, matrix)


def test_deprecated_linalg_rows_warn_when_called() -> None:
    matrix = torch.eye(3) + 0.1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.cholesky(matrix @ matrix.T)
        torch.range(0, 3)
    assert {"torch.cholesky", "torch.range"} <= {str(w.message).split(" ", 1)[0] for w in caught}


LU_SOLVE = b"import torch\nx = torch.lu_solve(b, LU, pivots)\n"


def _codes(source: bytes, code: str, target: tuple[int, int] | None) -> list[str]:
    rule = rule_by_selector(code)
    result = lint_source(source, "example.py", [rule], LintSettings(target_version=target))
    return [diagnostic.code for diagnostic in result.diagnostics]


def test_a_row_is_reported_when_the_target_version_has_its_replacement() -> None:
    assert _codes(LU_SOLVE, "TCK903", None) == ["TCK903"]
    assert _codes(LU_SOLVE, "TCK903", (1, 13)) == ["TCK903"]


def test_a_row_is_silent_when_the_target_version_predates_its_replacement() -> None:
    assert _codes(LU_SOLVE, "TCK903", (1, 12)) == []


@pytest.mark.parametrize("rule", [rule for rule in all_rules() if rule.requires_torch], ids=lambda rule: rule.code)
def test_a_rule_is_off_when_the_target_version_predates_the_api_it_recommends(rule) -> None:
    example = rule.INVALID[0].code.lstrip("\n").encode()
    major, minor = rule.requires_torch
    assert _codes(example, rule.code, (major, minor))
    assert _codes(example, rule.code, (major, minor - 1) if minor else (major - 1, 99)) == []


GRAD_SCALER = b"import torch\nscaler = torch.cuda.amp.GradScaler()\nwith torch.cuda.amp.autocast():\n    pass\n"


def test_deprecated_amp_calls_are_reported_only_where_the_target_version_has_torch_amp() -> None:
    assert _codes(GRAD_SCALER, "TCK301", (2, 3)) == ["TCK301", "TCK301"]
    assert _codes(GRAD_SCALER, "TCK301", (2, 2)) == ["TCK301"]  # autocast only
    assert _codes(GRAD_SCALER, "TCK301", (1, 9)) == []
