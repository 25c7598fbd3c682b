"""TCK000 findings for files that cannot be linted, with Python's own message and location.

libcst's syntax errors are often one line off and its tokenizer errors all point at 1:1, so
when libcst refuses a file, CPython's parser is asked for the verdict (only then: it costs
nothing for valid files). Where CPython accepts a file that libcst refuses, the finding says
so: the file is fine, the linter's parser is not.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
import warnings

from torchcheck.lint import nesting
from torchcheck.lint.diagnostic import (
    SYNTAX_ERROR_CODE,
    SYNTAX_ERROR_NAME,
    Diagnostic,
    Location,
)
from torchcheck.lint.positions import LINE_BREAK

UNDECODABLE = "cannot decode file: {reason}"
REFUSED_ENCODING = (
    "encoding problem: {encoding} (Python reads source files only in an encoding that leaves "
    "ASCII as it is, such as UTF-8 or latin-1)"
)
SYNTAX_ERROR = "syntax error: {message}"
TOO_DEEP_FOR_PYTHON = "syntax error: nested too deeply for Python to compile ({reason})"
PARSER_LIMITATION = "valid Python that torchcheck's parser (libcst) cannot read: {reason}"
TOO_DEEP_TO_ANALYSE = (
    "valid Python, but too expensive to analyse: expressions nest {depth:,} levels deep, and "
    "torchcheck's parser (libcst) needs time and memory that grow with the square of the depth "
    "(it takes up to {limit:,}); split the expression"
)
LONG_BOOLEAN_CHAIN = (
    "valid Python, but a chain of {count:,} `and`/`or` operands is more than torchcheck's parser "
    "(libcst) can take ({limit:,}); split the expression"
)

# libcst nests `a and b and c ...` one level per operand with no limit of its own (CPython
# keeps them flat); 3,000 is the limit libcst sets itself for other chains.
MAX_BOOLEAN_CHAIN = 3_000

# An encoding Python can read source in must decode these ASCII bytes to themselves.
_ASCII_PROBE = "# -*- coding: name -*-\nimport name\n"
_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*[-\w.]+", re.MULTILINE)
_BYTE_LINE_BREAK = re.compile(rb"\r\n|\r|\n")


def problem(filename: str, message: str, row: int = 1, column: int = 1, source_line: str = "") -> Diagnostic:
    location = Location(row, column)
    return Diagnostic(filename, SYNTAX_ERROR_CODE, SYNTAX_ERROR_NAME, message, location, location, source_line)


def source_lines(text: str) -> list[str]:
    """The file's lines as Python and libcst number them (a form feed ends no line)."""
    return LINE_BREAK.split(text)


def _line(lines: list[str], row: int) -> str:
    return lines[row - 1] if 0 < row <= len(lines) else ""


def _keeps_ascii(encoding: str) -> bool:
    try:
        return _ASCII_PROBE.encode("ascii").decode(encoding) == _ASCII_PROBE
    except (UnicodeDecodeError, LookupError):  # LookupError: not a text encoding (rot13, hex)
        return False


def decode(source: bytes) -> str:
    """Decode like Python does: a BOM or a PEP 263 coding cookie, else UTF-8. Raises
    SyntaxError for a cookie Python refuses, such as ``utf-16``."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
    if not _keeps_ascii(encoding):
        raise SyntaxError(REFUSED_ENCODING.format(encoding=encoding))
    return source.decode(encoding).removeprefix("\ufeff")


def _cookie_location(source: bytes) -> tuple[int, int]:
    """Where the coding cookie is (it can only be on line 1 or 2); 1:1 without one."""
    first_two_lines = b"\n".join(source.split(b"\n", 2)[:2])
    match = _COOKIE.search(first_two_lines)
    return (1, 1) if match is None else (first_two_lines.count(b"\n", 0, match.start()) + 1, 1)


def _byte_location(source: bytes, offset: int) -> tuple[int, int]:
    lines_before = _BYTE_LINE_BREAK.split(source[:offset])
    return len(lines_before), len(lines_before[-1]) + 1


def _text_location(text: str, index: int) -> tuple[int, int]:
    lines_before = source_lines(text[:index])
    return len(lines_before), len(lines_before[-1]) + 1


def _ast_column(line: str, col_offset: int) -> int:
    """The 1-based column of ``ast``'s ``col_offset``, which counts UTF-8 bytes."""
    return len(line.encode("utf-8")[:col_offset].decode("utf-8", "replace")) + 1


def decode_or_problem(source: bytes, filename: str) -> str | Diagnostic:
    """The file's text, or a TCK000 finding at the cookie or the byte that does not decode."""
    try:
        return decode(source)
    except UnicodeDecodeError as error:
        row, column = _byte_location(source, error.start)
        return problem(filename, UNDECODABLE.format(reason=error), row, column)
    except (SyntaxError, LookupError) as error:  # an unknown or refused coding cookie
        row, column = _cookie_location(source)
        return problem(filename, UNDECODABLE.format(reason=error), row, column)


def _python_syntax_error(text: str, filename: str, error: SyntaxError) -> Diagnostic:
    lines = source_lines(text)
    if error.lineno is None and "\0" in text:  # CPython gives no location for a NUL byte
        row, column = _text_location(text, text.index("\0"))
    else:
        row = min(max(error.lineno or 1, 1), len(lines))
        column = min(max(error.offset or 1, 1), len(_line(lines, row)) + 1)
    return problem(filename, SYNTAX_ERROR.format(message=error.msg), row, column, _line(lines, row))


def _longest_boolean_chain(tree: ast.AST) -> ast.BoolOp | None:
    chains = [node for node in ast.walk(tree) if isinstance(node, ast.BoolOp)]
    return max(chains, key=lambda node: len(node.values), default=None)


def _python_tree(text: str, filename: str) -> ast.AST | Diagnostic:
    """CPython's tree of ``text``, or the TCK000 finding for its refusal. Parsed as deep as
    when CPython compiles a script, wherever in torchcheck's own calls it is asked."""
    try:
        with warnings.catch_warnings(), nesting.as_at_top_level():  # a linter does not print Python's SyntaxWarnings
            warnings.simplefilter("ignore")
            return compile(text, filename, "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as error:
        return _python_syntax_error(text, filename, error)
    except ValueError as error:  # older Pythons raise ValueError for a NUL byte
        return _python_syntax_error(text, filename, SyntaxError(str(error)))
    except (RecursionError, MemoryError) as error:
        row = nesting.longest_statement_line(text)
        reason = str(error) or type(error).__name__
        return problem(filename, TOO_DEEP_FOR_PYTHON.format(reason=reason), row, 1, _line(source_lines(text), row))


def python_refusal(text: str, filename: str) -> Diagnostic | None:
    """A TCK000 finding if CPython refuses ``text``, else None: the verdict for a file that
    libcst never parses. Call it like :func:`python_verdict`."""
    tree = _python_tree(text, filename)
    return tree if isinstance(tree, Diagnostic) else None


def _deepest(tree: ast.AST) -> tuple[int, ast.AST]:
    """How deep libcst's tree of ``tree`` nests, and its deepest node. libcst nests a
    boolean chain a level an operand where CPython keeps it flat."""
    deepest, deepest_node = 0, tree
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > deepest:
            deepest, deepest_node = depth, node
        step = len(node.values) - 1 if isinstance(node, ast.BoolOp) else 1
        stack.extend((child, depth + step) for child in ast.iter_child_nodes(node))
    return deepest, deepest_node


def python_verdict(text: str, filename: str) -> Diagnostic | None:
    """A TCK000 finding if CPython rejects ``text`` or if it is valid but beyond what libcst
    can take; None if the file is fine. Call it on a deep stack."""
    tree = _python_tree(text, filename)
    if isinstance(tree, Diagnostic):
        return tree
    chain = _longest_boolean_chain(tree)
    if chain is not None and len(chain.values) > MAX_BOOLEAN_CHAIN:
        line = _line(source_lines(text), chain.lineno)
        message = LONG_BOOLEAN_CHAIN.format(count=len(chain.values), limit=MAX_BOOLEAN_CHAIN)
        return problem(filename, message, chain.lineno, _ast_column(line, chain.col_offset), line)
    depth, node = _deepest(tree)
    if depth <= nesting.MAX_DEPTH_BOUND:
        return None
    row = getattr(node, "lineno", None) or nesting.longest_statement_line(text)
    message = TOO_DEEP_TO_ANALYSE.format(depth=depth, limit=nesting.MAX_DEPTH_BOUND)
    return problem(filename, message, row, 1, _line(source_lines(text), row))


def unparsable(text: str, filename: str, libcst_error: Exception, row: int = 1, column: int = 1) -> Diagnostic:
    """The finding for a file libcst refused with ``libcst_error`` (found at ``row``:``column``
    by libcst's count): Python's verdict where Python refuses it too."""
    verdict = nesting.on_deep_stack(python_verdict, text, filename)
    if verdict is not None:
        return verdict
    reason = getattr(libcst_error, "message", None) or str(libcst_error)
    lines = source_lines(text)
    row = min(max(row, 1), len(lines))  # libcst's count can lie past a line's end or the file's
    column = min(max(column, 1), len(_line(lines, row)) + 1)
    return problem(filename, PARSER_LIMITATION.format(reason=reason), row, column, _line(lines, row))
