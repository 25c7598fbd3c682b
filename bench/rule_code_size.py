"""How much code the rules are: lines of code per rule module, without docstrings,
examples (`VALID`/`INVALID`), comments or blank lines.

    python bench/rule_code_size.py [--top N]
"""

from __future__ import annotations

import argparse
import ast
import io
import tokenize
from pathlib import Path

RULES = Path(__file__).resolve().parent.parent / "src" / "torchcheck" / "rules"
EXAMPLE_NAMES = frozenset({"VALID", "INVALID"})


def _excluded_lines(tree: ast.Module) -> set[int]:
    excluded: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and _is_docstring(body[0]):
            excluded.update(range(body[0].lineno, body[0].end_lineno + 1))
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and _assigns_examples(node):
            excluded.update(range(node.lineno, node.end_lineno + 1))
    return excluded


def _is_docstring(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


def _assigns_examples(node: ast.Assign | ast.AnnAssign) -> bool:
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    return any(isinstance(target, ast.Name) and target.id in EXAMPLE_NAMES for target in targets)


def code_lines(path: Path) -> int:
    source = path.read_text()
    excluded = _excluded_lines(ast.parse(source))
    lines_with_code: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT,
                          tokenize.DEDENT, tokenize.ENDMARKER):
            continue
        lines_with_code.update(range(token.start[0], token.end[0] + 1))
    return len(lines_with_code - excluded)


def rule_modules() -> list[Path]:
    return sorted(path for path in RULES.rglob("*.py") if path.name != "__init__.py")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=15)
    arguments = parser.parse_args()
    sizes = {path: code_lines(path) for path in rule_modules()}
    print(f"rule modules: {len(sizes)}, code lines: {sum(sizes.values())}")
    for path, size in sorted(sizes.items(), key=lambda item: -item[1])[: arguments.top]:
        print(f"{size:5d}  {path.relative_to(RULES)}")
    print(f"over 200 lines: {sum(size > 200 for size in sizes.values())}")


if __name__ == "__main__":
    main()
