"""A loop whose every pass that raises nothing leaves it runs again only after a failure
(lint/nodes.py ``passes_once``): its passes are attempts, not iterations."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from torchcheck.lint.nodes import passes_once

RETRIES = {
    "break at the end": """
        while True:
            step()
            break
    """,
    "try, else: break": """
        while parts < limit:
            try:
                step(parts)
            except MemoryError:
                parts *= 2
            else:
                break
    """,
    "break at the end of the try body": """
        for attempt in range(3):
            try:
                step()
                break
            except RuntimeError:
                continue
    """,
    "return on every branch": """
        for attempt in range(3):
            if ready():
                return step()
            elif late():
                raise TimeoutError
            else:
                return None
    """,
    "a with block that returns": """
        while True:
            with lock:
                return step()
    """,
    "a finally that breaks": """
        while True:
            try:
                step()
            finally:
                break
    """,
}

ITERATIONS = {
    "a plain loop": """
        for batch in loader:
            step(batch)
    """,
    "an if without else": """
        for batch in loader:
            step(batch)
            if done():
                break
    """,
    "a handler that breaks, the body that does not": """
        for batch in loader:
            try:
                step(batch)
            except StopIteration:
                break
    """,
    "an elif without else": """
        for batch in loader:
            if a():
                break
            elif b():
                return
    """,
}


def _loop(code: str) -> cst.For | cst.While:
    body = cst.parse_module(textwrap.dedent(code)).body[0]
    assert isinstance(body, (cst.For, cst.While))
    return body


@pytest.mark.parametrize("code", RETRIES.values(), ids=RETRIES.keys())
def test_a_loop_left_by_every_pass_that_raises_nothing_passes_once(code: str) -> None:
    assert passes_once(_loop(code))


@pytest.mark.parametrize("code", ITERATIONS.values(), ids=ITERATIONS.keys())
def test_a_loop_that_may_go_round_without_failing_iterates(code: str) -> None:
    assert not passes_once(_loop(code))
