"""Settings that change what rules report; part of every cache key, so cheap to import."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LintSettings:
    """Settings that change what rules report (part of the cache key)."""

    target_version: tuple[int, int] | None = None  # oldest supported PyTorch, e.g. (2, 1)
    # In a notebook: the row where each code cell starts in the joined source. A cell's last
    # statement, when it is an expression, is the cell's output: shown, not discarded.
    cell_starts: tuple[int, ...] = ()

    def has_torch_api(self, since: tuple[int, int] | None) -> bool:
        """Whether an API added in PyTorch ``since`` exists in every version the project
        supports (always, when no ``target-version`` is configured)."""
        return since is None or self.target_version is None or self.target_version >= since
