"""Suite-wide collection order: the few tests that take minutes start first.

CI runs ``pytest -n 2``, and pytest-xdist hands each worker one test at a time
(``--maxschedchunk 1`` in pyproject.toml), so the long tests, marked ``starts_first``,
go to both workers at the start while the short ones fill the gaps: a long test that
started last would keep one worker busy after the other finished.
"""

from __future__ import annotations

import pytest
from _pytest.monkeypatch import MonkeyPatch
from _pytest.pytester import SysModulesSnapshot

STARTS_FIRST = "starts_first"
_STARTS_FIRST_HELP = (
    f"{STARTS_FIRST}: a test that takes minutes (an external tool, several Python processes); "
    "it is scheduled before every other test"
)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", _STARTS_FIRST_HELP)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # A stable sort: the marked tests keep their order among themselves and every other test
    # its collection order; the order is the same on every xdist worker, as xdist requires.
    items.sort(key=lambda item: item.get_closest_marker(STARTS_FIRST) is None)


def _keep_torch_imported(_pytester: pytest.Pytester) -> SysModulesSnapshot:
    """Pytester forgets the modules an in-process run imported, so the next import makes them
    anew. Neither torch's nor ours may be made twice in one process: importing torch's modules
    registers operator libraries in C++ (a second ``torch.ao.quantization.fx._decomposed``
    raises "Only a single TORCH_LIBRARY..."), and a second copy of one of ours makes classes
    that pickle cannot find (ranks gathering a ``ForwardEffects``)."""
    return SysModulesSnapshot(preserve=_imported_once)


def _imported_once(name: str) -> bool:
    top = name.partition(".")[0]
    return top in {"torch", "functorch", "torchcheck"} or name.startswith(("zope", "readline"))


_patch = MonkeyPatch()
_patch.setattr(pytest.Pytester, "_Pytester__take_sys_modules_snapshot", _keep_torch_imported)
