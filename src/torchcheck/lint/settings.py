"""Settings that change what rules report; part of every cache key, so cheap to import."""

from __future__ import annotations

from dataclasses import dataclass

from torchcheck.lint.stars import StarImport


@dataclass(frozen=True)
class LintSettings:
    """Settings that change what rules report (part of the cache key)."""

    target_version: tuple[int, int] | None = None  # oldest supported PyTorch, e.g. (2, 1)
    # In a notebook: the row where each code cell starts in the joined source. A cell's last
    # statement, when it is an expression, is the cell's output: shown, not discarded.
    cell_starts: tuple[int, ...] = ()
    # The names each `from <project module> import *` of the file binds (read from that module).
    star_imports: tuple[StarImport, ...] = ()

    def star_import(self, module: str | None, level: int) -> StarImport | None:
        """What ``from <module> import *`` (``level`` leading dots) binds, when it is known."""
        return next((star for star in self.star_imports if star.module == module and star.level == level), None)

    def has_torch_api(self, since: tuple[int, int] | None) -> bool:
        """Whether an API added in PyTorch ``since`` exists in every version the project
        supports (always, when no ``target-version`` is configured)."""
        return since is None or self.target_version is None or self.target_version >= since
