"""``# noqa`` / ``# torchcheck: ignore[...]`` / ``# torchcheck: skip-file`` comments."""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass, field

_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Za-z0-9_\-]+(?:[\s,]+[A-Za-z0-9_\-]+)*))?", re.IGNORECASE)
_IGNORE = re.compile(r"#\s*torchcheck:\s*ignore(?:\[(?P<codes>[^\]]*)\])?", re.IGNORECASE)
# Searched for from its `#`: a pattern anchored at every line start costs 30 times more.
_SKIP_FILE = re.compile(r"#\s*torchcheck:\s*skip-file\b", re.IGNORECASE)

ALL_CODES = "*"


def skips_file(source: str) -> bool:
    """Whether a line of ``source`` is only a ``# torchcheck: skip-file`` comment."""
    for match in _SKIP_FILE.finditer(source):
        line_start = source.rfind("\n", 0, match.start()) + 1
        if not source[line_start : match.start()].strip(" \t"):
            return True
    return False


def _codes(raw: str | None) -> frozenset[str]:
    if raw is None or not raw.strip():
        return frozenset({ALL_CODES})
    return frozenset(code.upper() if code.upper().startswith("TCK") else code.lower() for code in re.split(r"[\s,]+", raw.strip()) if code)


@dataclass(frozen=True)
class NoqaComment:
    """A comment holding a ``# noqa`` directive, as the tokenizer found it."""

    row: int  # 1-based
    column: int  # 0-based, in code points
    text: str  # the whole comment, from its ``#``


@dataclass(frozen=True)
class Suppressions:
    """Suppressed codes (or rule names) per 1-based line."""

    by_line: dict[int, frozenset[str]]
    noqa_comments: tuple[NoqaComment, ...] = ()
    # (line, code or name) of every entry that silenced a finding, recorded by suppresses():
    # once all findings are placed, the entries not in it silenced nothing (unused-noqa).
    used: set[tuple[int, str]] = field(default_factory=set, compare=False)

    @classmethod
    def parse(cls, source: str) -> Suppressions:
        by_line: dict[int, frozenset[str]] = {}
        noqa_comments = []
        for (line, column), comment in _comments(source):
            for pattern in (_NOQA, _IGNORE):
                match = pattern.search(comment)
                if match:
                    by_line[line] = by_line.get(line, frozenset()) | _codes(match.group("codes"))
                    if pattern is _NOQA:
                        noqa_comments.append(NoqaComment(line, column, comment))
        return cls(by_line, tuple(noqa_comments))

    def suppresses(self, code: str, name: str, first_line: int, last_line: int) -> bool:
        """Whether a comment on any line of ``first_line..last_line`` silences ``code``;
        every entry that does is recorded in ``used``."""
        silenced = False
        for line in range(first_line, last_line + 1):
            codes = self.by_line.get(line)
            matching = codes & {ALL_CODES, code, name} if codes else None
            if matching:
                self.used.update((line, entry) for entry in matching)
                silenced = True
        return silenced


def _comments(source: str) -> list[tuple[tuple[int, int], str]]:
    """The comments that may suppress something; tokenizing (to tell a comment from a string
    holding ``#``) costs a tenth of a parse, so files without such a comment skip it."""
    if _NOQA.search(source) is None and _IGNORE.search(source) is None:
        return []
    try:
        return [
            (token.start, token.string)
            for token in tokenize.generate_tokens(io.StringIO(source).readline)
            if token.type == tokenize.COMMENT
        ]
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return []
