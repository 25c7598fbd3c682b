"""One rule's metadata as users see it, without importing the rule (see :mod:`catalogue`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from torchcheck.lint.rule import Rule


@dataclass(frozen=True)
class RuleInfo:
    """One rule's metadata, as users see it."""

    code: str
    name: str
    default_enabled: bool
    fix: str  # "none", "safe" or "unsafe": what `--fix` does with the rule's findings
    fix_title: str | None
    message: str
    documentation: str  # the rule's docstring, dedented (ruff's headings)
    family: str = ""  # its folder under torchcheck/rules/ (ruff's "linter"): training, devices, ...

    @property
    def summary(self) -> str:
        """The first sentence of the doc ("Checks for ...")."""
        return self.documentation.split("\n\n", 1)[0].replace("## What it does", "").strip()

    @classmethod
    def of(cls, rule: type[Rule]) -> RuleInfo:
        from torchcheck.lint.rule import documentation

        return cls(
            code=rule.code,
            name=rule.name,
            default_enabled=rule.default_enabled,
            fix=rule.fix_safety.value if rule.has_fix() else "none",
            fix_title=rule.fix_title,
            message=rule.message,
            documentation=documentation(rule),
            family=_family(rule),
        )


def _family(rule: type[Rule]) -> str:
    """The family folder of a rule module, ``torchcheck.rules.<family>.<module>``; "" elsewhere."""
    parts = rule.__module__.split(".")
    return parts[2] if len(parts) == 4 and parts[:2] == ["torchcheck", "rules"] else ""
