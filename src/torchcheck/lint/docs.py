"""Rule documentation pages: rendered from the rule classes into ``rules/*.md``.

Run ``python -m torchcheck.lint.docs`` to regenerate; ``--check`` fails if a page is stale.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from torchcheck.lint import catalogue
from torchcheck.lint.catalogue import BANNER, RuleInfo, fix_cell
from torchcheck.lint.registry import all_rules
from torchcheck.lint.rule import Rule, documentation

REQUIRED_HEADINGS = ("## What it does", "## Why is this bad?", "## Example", "Use instead:", "## Fix safety", "## References")

_CODE_BLOCK_AFTER = r"{heading}\n+```python\n(.*?)```"


@dataclass(frozen=True)
class RuleExamples:
    """The two code blocks of a rule page, which the rule's tests lint as a user would."""

    example: str  # the mistake: the rule reports it
    use_instead: str  # the correction: the rule is silent


def _code_block_after(doc: str, heading: str, rule: type[Rule]) -> str:
    match = re.search(_CODE_BLOCK_AFTER.format(heading=re.escape(heading)), doc, re.DOTALL)
    if match is None:
        raise ValueError(f"{rule.code}'s documentation has no ```python block right after {heading!r}")
    return match.group(1)


def rule_examples(rule: type[Rule]) -> RuleExamples:
    """The code under "## Example" and under "Use instead:" in ``rule``'s documentation."""
    doc = documentation(rule)
    return RuleExamples(_code_block_after(doc, "## Example", rule), _code_block_after(doc, "Use instead:", rule))


def _fix_cell(rule: type[Rule]) -> str:
    return fix_cell(RuleInfo.of(rule))


def render_rule_page(rule: type[Rule], banner: bool = True) -> str:
    return catalogue.render_rule_page(RuleInfo.of(rule), banner)


def render_index(rules: tuple[type[Rule], ...]) -> str:
    rows = "".join(
        f"| [{rule.code}]({rule.code}.md) | {rule.name} | {'on' if rule.default_enabled else 'opt-in'} | {_fix_cell(rule)} |\n"
        for rule in rules
    )
    return f"{BANNER}# torchcheck rules\n\n| Code | Name | Default | Fix |\n|---|---|---|---|\n{rows}"


def expected_pages() -> dict[str, str]:
    rules = all_rules()
    pages = {f"{rule.code}.md": render_rule_page(rule) for rule in rules}
    pages["README.md"] = render_index(rules)
    return pages


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("directory", nargs="?", type=Path, default=Path("rules"))
    parser.add_argument("--check", action="store_true", help="exit 1 if a page is missing or stale")
    options = parser.parse_args(argv)
    stale = []
    for name, content in expected_pages().items():
        path = options.directory / name
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current != content:
            stale.append(name)
            if not options.check:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(content, encoding="utf-8")
    if options.check and stale:
        sys.stderr.write(f"stale rule pages: {', '.join(stale)}; run python -m torchcheck.lint.docs\n")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
