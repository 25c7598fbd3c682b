"""Shared set-up for the benchmarks: real third-party code and a TorchFix install to compare with.

Nothing here is committed output: wheels are downloaded with ``pip download --no-deps`` into
``bench/_corpus/`` (git-ignored) and unpacked there.
"""

from __future__ import annotations

import subprocess
import sys
import venv
import zipfile
from pathlib import Path

BENCH = Path(__file__).resolve().parent
WORK = BENCH / "_corpus"
TORCHFIX_VENV = WORK / "torchfix-venv"
DEFAULT_PACKAGES = ("timm==1.0.31",)
TORCHFIX_REQUIREMENT = "torchfix==0.7.0"


def download(requirement: str, work: Path = WORK) -> Path:
    """Unpack the wheel for ``requirement`` into ``<work>/<name>/`` and return that folder."""
    name = requirement.split("==")[0].split(">")[0].split("<")[0]
    target = work / name
    if target.exists():
        return target
    wheels = work / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", str(wheels), requirement],
        check=True,
        stdout=sys.stderr,  # keep stdout for the caller's own output
    )
    wheel = next(w for w in sorted(wheels.glob("*.whl")) if w.name.lower().startswith(name.lower().replace("-", "_")))
    with zipfile.ZipFile(wheel) as archive:
        members = [m for m in archive.namelist() if m.startswith(f"{name}/") and m.endswith(".py")]
        archive.extractall(target.parent, members)
    return target


def torch_files(folder: Path) -> list[Path]:
    """Files that mention torch: the ones any PyTorch linter actually parses."""
    return sorted(p for p in folder.rglob("*.py") if "torch" in p.read_text(encoding="utf-8", errors="replace"))


def torchfix_python(environment: Path = TORCHFIX_VENV) -> Path:
    """A private venv with TorchFix (it needs libcst<1.6 and PyYAML, never torch)."""
    python = environment / "bin" / "python"
    if not python.exists():
        venv.EnvBuilder(with_pip=True).create(environment)
        pip = [str(python), "-m", "pip", "install", "--quiet"]
        subprocess.run([*pip, "--no-deps", TORCHFIX_REQUIREMENT], check=True, stdout=sys.stderr)
        subprocess.run([*pip, "libcst>=1.5,<1.6", "pyyaml", "flake8"], check=True, stdout=sys.stderr)
    return python
