"""Rule discovery (by walking the ``torchcheck.rules`` package) and rule selection.

Selection works on anything with a ``code``, ``name`` and ``default_enabled``: the rule
classes, or their cheap :class:`~torchcheck.lint.catalogue.RuleInfo` metadata, which is
what the command line uses so that it imports the rule modules only to lint.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import pkgutil
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Protocol, TypeVar

from torchcheck.lint.rule_info import RuleInfo
from torchcheck.lint.rule_table import RULES

if TYPE_CHECKING:
    from torchcheck.lint.rule import Rule


class Selectable(Protocol):
    @property
    def code(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def default_enabled(self) -> bool: ...


R = TypeVar("R", bound=Selectable)

RULES_PACKAGE = "torchcheck.rules"
ALL_SELECTOR = "ALL"


class UnknownSelectorError(ValueError):
    """A code, prefix or rule name in ``select``/``ignore`` matches no rule."""

    def __init__(self, selector: str) -> None:
        super().__init__(selector)
        self.selector = selector


@functools.cache
def all_rules() -> tuple[type[Rule], ...]:
    """Every rule class in the rules package, sorted by code."""
    from torchcheck.lint.rule import Rule

    package = importlib.import_module(RULES_PACKAGE)
    found: dict[str, type[Rule]] = {}
    for info in pkgutil.walk_packages(package.__path__, prefix=f"{RULES_PACKAGE}."):
        module = importlib.import_module(info.name)
        for _, value in inspect.getmembers(module, inspect.isclass):
            if issubclass(value, Rule) and "code" in value.__dict__ and value.__module__ == module.__name__:
                if value.code in found and found[value.code] is not value:
                    raise TypeError(f"two rules claim {value.code}: {found[value.code].__name__} and {value.__name__}")
                found[value.code] = value
    return tuple(sorted(found.values(), key=lambda rule: rule.code))


def rules_by_code(codes: Iterable[str]) -> list[type[Rule]]:
    """The rule classes with these codes, in the order given."""
    by_code = {rule.code: rule for rule in all_rules()}
    return [by_code[code] for code in codes]


def _exactly(selector: str, rules: Iterable[R]) -> R | None:
    wanted = selector.strip()
    for rule in rules:
        if wanted.upper() == rule.code or wanted.lower() == rule.name:
            return rule
    return None


def rule_by_selector(selector: str) -> type[Rule] | None:
    """The rule class whose code or name is exactly ``selector``."""
    return _exactly(selector, all_rules())


def info_by_selector(selector: str) -> RuleInfo | None:
    """The metadata of the rule whose code or name is exactly ``selector``."""
    return _exactly(selector, RULES)


def _specificity(selector: str, rule: Selectable) -> int | None:
    """How precisely ``selector`` names ``rule`` (higher wins), or None if it does not."""
    if selector == ALL_SELECTOR:
        return 0
    if selector.lower() == rule.name or selector.upper() == rule.code:
        return 100
    if rule.code.startswith(selector.upper()):
        return len(selector)
    return None


def matches(selector: str, rule: Selectable) -> bool:
    return _specificity(selector, rule) is not None


def validate_selectors(selectors: Iterable[str], rules: Sequence[Selectable] | None = None) -> None:
    known = RULES if rules is None else rules
    for selector in selectors:
        if selector != ALL_SELECTOR and not any(_specificity(selector, rule) is not None for rule in known):
            raise UnknownSelectorError(selector)


def _best(selectors: Iterable[str], rule: Selectable) -> int:
    return max((s for s in (_specificity(selector, rule) for selector in selectors) if s is not None), default=-1)


def select_rules(
    select: Iterable[str] | None = None,
    extend_select: Iterable[str] = (),
    ignore: Iterable[str] = (),
    rules: Sequence[R] | None = None,
) -> tuple[R, ...]:
    """The enabled rules among ``rules`` (default: the catalogue's metadata): ``select``
    (default: the rules on by default) plus ``extend_select``, minus ``ignore``; where a
    rule is both selected and ignored, the more specific selector wins."""
    candidates: Sequence = RULES if rules is None else rules
    select, extend_select, ignore = (list(select) if select is not None else None), list(extend_select), list(ignore)
    validate_selectors([*(select or ()), *extend_select, *ignore], candidates)
    enabled = []
    for rule in candidates:
        chosen = _best(select, rule) if select is not None else (0 if rule.default_enabled else -1)
        chosen = max(chosen, _best(extend_select, rule))
        if chosen >= 0 and chosen > _best(ignore, rule):
            enabled.append(rule)
    return tuple(enabled)
