"""How far the equivalence checks localise a failure: ``off``, ``module`` or ``op``.

Resolved per check as: the check's ``localize=`` keyword, else the pytest run's setting
(``--torchcheck-localize``, env ``TORCHCHECK_LOCALIZE``, ini ``torchcheck_localize``, set
by the plugin at configure), else the environment variable, else ``op``. Imports neither
torch nor pytest: the plugin reads its levels and environment variable from here.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

LOCALIZE_LEVELS = ("off", "module", "op")
LOCALIZE_ENV = "TORCHCHECK_LOCALIZE"
DEFAULT_LEVEL = "op"
BAD_LEVEL = "{source}: expected one of off, module, op, got {value!r}"

_run_level: list[str | None] = [None]  # the pytest run's resolved level; None outside one


def parse_level(text: str, source: str) -> str:
    level = text.strip().lower()
    if level not in LOCALIZE_LEVELS:
        raise ValueError(BAD_LEVEL.format(source=source, value=text))
    return level


def set_run_level(level: str | None) -> str | None:
    """Make ``level`` the default of every check in this process; returns the previous
    one, for the plugin to put back when its session ends (pytester nests sessions)."""
    previous = _run_level[0]
    _run_level[0] = level
    return previous


def localize_level(explicit: str | None = None, env: Mapping[str, str] = os.environ) -> str:
    """The level a check uses: its keyword, the run's setting, the environment, ``op``."""
    if explicit is not None:
        return parse_level(explicit, "localize=")
    if _run_level[0] is not None:
        return _run_level[0]
    text = env.get(LOCALIZE_ENV, "")
    return parse_level(text, LOCALIZE_ENV) if text.strip() else DEFAULT_LEVEL
