"""Make a checkout's src/ look installed: write ``<name>-<version>.dist-info`` (METADATA and
entry_points.txt, read from pyproject.toml) into a folder that goes on PYTHONPATH beside src/.

    python .ci/source_dist_info.py REPOSITORY_ROOT FOLDER

``.ci/gpu`` uses it where torchcheck is not installed (a bare GPU machine given a copy of the
checkout): pytest finds the torchcheck plugin through its ``pytest11`` entry point, in the job's
run and in the inner pytest runs that tests start, which inherit PYTHONPATH.
"""

from __future__ import annotations

import sys
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib


def write_dist_info(root: Path, folder: Path) -> Path:
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    info = folder / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    metadata = f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n"
    (info / "METADATA").write_text(metadata, encoding="utf-8")
    (info / "entry_points.txt").write_text(entry_points_text(project.get("entry-points", {})), encoding="utf-8")
    return info


def entry_points_text(groups: dict[str, dict[str, str]]) -> str:
    return "".join(
        f"[{group}]\n" + "".join(f"{name} = {target}\n" for name, target in entries.items())
        for group, entries in groups.items()
    )


if __name__ == "__main__":
    print(write_dist_info(Path(sys.argv[1]), Path(sys.argv[2])))
