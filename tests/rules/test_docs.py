"""Rule documentation: ruff's headings in every rule, examples that behave as the page says,
generated pages in rules/ are current."""

from __future__ import annotations

import builtins
import symtable
from pathlib import Path

import pytest

from tests.rules.examples import as_one_file_project
from torchcheck.lint.diagnostic import SYNTAX_ERROR_CODE
from torchcheck.lint.docs import REQUIRED_HEADINGS, expected_pages, rule_examples
from torchcheck.lint.engine import lint_source
from torchcheck.lint.registry import all_rules
from torchcheck.lint.rule import Rule, documentation

PAGES = Path(__file__).resolve().parents[2] / "rules"

# Names a user only has after an import. An example that uses one without importing it
# does not work when copied; lowercase names otherwise stand for the user's own objects
# (`model`, `loader`, `epochs`) and may stay unbound.
MODULE_ALIASES = frozenset(
    {"torch", "nn", "F", "np", "numpy", "random", "math", "optim", "torchvision", "transforms", "models", "functools"}
)


@pytest.mark.parametrize("rule", all_rules(), ids=lambda rule: rule.code)
def test_rule_doc_has_every_heading_in_order(rule) -> None:
    doc = documentation(rule)
    positions = [doc.find(heading) for heading in REQUIRED_HEADINGS]
    assert -1 not in positions, f"{rule.code} doc lacks {REQUIRED_HEADINGS[positions.index(-1)]!r}"
    assert positions == sorted(positions)
    assert doc.split("## What it does", 1)[1].strip().startswith("Checks for")


def _codes_reported(rule: type[Rule], source: str) -> list[str]:
    """Codes found when ``source`` is linted with ``rule`` alone, selected explicitly as a user
    trying the page's example would (so opt-in rules count too)."""
    result = lint_source(source.encode(), "example.py", [rule])
    return [diagnostic.code for diagnostic in as_one_file_project(result, "example.py")]


@pytest.mark.parametrize("rule", all_rules(), ids=lambda rule: rule.code)
def test_rule_page_example_is_reported_when_copied_as_shown(rule) -> None:
    codes = _codes_reported(rule, rule_examples(rule).example)
    assert SYNTAX_ERROR_CODE not in codes, f"{rule.code}'s Example does not parse"
    assert rule.code in codes, f"{rule.code}'s Example is not reported by {rule.code}"


@pytest.mark.parametrize("rule", all_rules(), ids=lambda rule: rule.code)
def test_rule_page_use_instead_is_not_reported_when_copied_as_shown(rule) -> None:
    codes = _codes_reported(rule, rule_examples(rule).use_instead)
    assert SYNTAX_ERROR_CODE not in codes, f"{rule.code}'s Use-instead code does not parse"
    assert rule.code not in codes, f"{rule.code}'s Use-instead code is still reported by {rule.code}"


def _unbound_names(source: str) -> set[str]:
    """Names read somewhere in ``source`` that nothing in ``source`` binds."""
    module = symtable.symtable(source, "example.py", "exec")
    bound = {symbol.get_name() for symbol in module.get_symbols() if symbol.is_assigned() or symbol.is_imported()}
    unbound: set[str] = set()
    tables = [module]
    while tables:
        table = tables.pop()
        tables.extend(table.get_children())
        for symbol in table.get_symbols():
            if symbol.is_referenced() and (symbol.is_global() or table is module):
                unbound.add(symbol.get_name())
    return unbound - bound - set(dir(builtins))


def _needs_an_import(name: str) -> bool:
    return name in MODULE_ALIASES or name[0].isupper()


@pytest.mark.parametrize("rule", all_rules(), ids=lambda rule: rule.code)
def test_rule_page_examples_import_every_module_and_class_they_use(rule) -> None:
    examples = rule_examples(rule)
    for heading, source in (("Example", examples.example), ("Use instead", examples.use_instead)):
        missing = sorted(name for name in _unbound_names(source) if _needs_an_import(name))
        assert not missing, f"{rule.code}'s {heading} code uses {', '.join(missing)} without importing it"


def test_rule_examples_names_the_rule_whose_page_lacks_a_code_block() -> None:
    class Undocumented(Rule):
        """## Example
        Some prose and no code.
        """

        code = "TCK999"
        name = "undocumented"

    with pytest.raises(ValueError, match="TCK999.*## Example"):
        rule_examples(Undocumented)


@pytest.mark.parametrize(("name", "content"), sorted(expected_pages().items()))
def test_generated_rule_page_is_current(name: str, content: str) -> None:
    page = PAGES / name
    assert page.exists() and page.read_text(encoding="utf-8") == content, (
        f"rules/{name} is stale: run python -m torchcheck.lint.docs"
    )
