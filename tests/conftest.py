"""Suite-wide collection order: the few tests that take minutes start first.

Under pytest-xdist (CI runs ``-n 2`` with ``--dist worksteal``) a long test that starts
last keeps one worker busy after the other has finished; started first, the other worker
runs the rest of the suite meanwhile and steals from the queue of the busy one.
"""

from __future__ import annotations

import pytest

#: Tests whose single item runs a whole external tool or several Python processes.
STARTS_FIRST = ("tests/parity/",)


def _starts_first(item: pytest.Item) -> bool:
    return item.nodeid.startswith(STARTS_FIRST)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # A stable sort keeps every other test in its collection order, and the order is the
    # same on every xdist worker, as xdist requires.
    items.sort(key=lambda item: not _starts_first(item))
