"""What a session that turned the plugin on resolves once and keeps in its stash: the
settings, and the devices this machine has.

Shared by ``hooks`` and ``model_items``. Loading this module imports neither torch nor
libcst; probing the devices imports torch.
"""

from __future__ import annotations

import pytest

from torchcheck.plugin.support import FoundDevices, Settings

__all__ = ["SETTINGS_KEY", "found_devices", "run_settings"]

# Annotated rather than subscripted (StashKey[Settings]()): no generic alias is built at import.
SETTINGS_KEY: pytest.StashKey[Settings] = pytest.StashKey()
_FOUND_KEY: pytest.StashKey[FoundDevices] = pytest.StashKey()


def run_settings(config: pytest.Config) -> Settings:
    """The settings ``hooks`` resolved at configure (the defaults before that)."""
    return config.stash.get(SETTINGS_KEY, Settings())


def found_devices(config: pytest.Config) -> FoundDevices:
    """What this machine has; probed once per session. Imports torch."""
    found = config.stash.get(_FOUND_KEY, None)
    if found is None:
        found = _probe_devices()
        config.stash[_FOUND_KEY] = found
    return found


def _probe_devices() -> FoundDevices:
    try:
        from torchcheck.checks.devices import available_devices
    except ModuleNotFoundError as error:
        if error.name != "torch":
            raise
        return FoundDevices()  # without torch, no test here can use a GPU
    devices = available_devices()
    return FoundDevices(
        cuda_count=sum(1 for d in devices if d.type == "cuda"),
        mps_available=any(d.type == "mps" for d in devices),
    )
