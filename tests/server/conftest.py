"""One language server per test module: starting one (and its lint workers) costs seconds."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(scope="module")
def session() -> Iterator[object]:
    """A server with default client capabilities, shared by the tests of one module."""
    pytest.importorskip("pygls")
    from tests.server.editor import EditorSession

    shared = EditorSession()
    try:
        yield shared
    finally:
        shared.stop()
