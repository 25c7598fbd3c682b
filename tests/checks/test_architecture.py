from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import torchcheck

CHECKS = Path(torchcheck.__file__).parent / "checks"


def test_checks_never_import_pytest() -> None:
    script = (
        "import sys, pkgutil, importlib, torchcheck.checks as c\n"
        "for m in pkgutil.iter_modules(c.__path__): importlib.import_module('torchcheck.checks.' + m.name)\n"
        "assert 'pytest' not in sys.modules, 'a checks module imported pytest'\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True)


def test_every_lazy_export_of_the_checks_resolves() -> None:
    for name, module in torchcheck._LAZY_EXPORTS.items():
        if module.startswith("torchcheck.checks."):
            assert callable(getattr(torchcheck, name)), name


def test_importing_torchcheck_does_not_import_torch() -> None:
    script = "import sys, torchcheck\nassert 'torch' not in sys.modules\n"
    subprocess.run([sys.executable, "-c", script], check=True)
