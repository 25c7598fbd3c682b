"""The import direction is the architecture: the linter never imports torch."""

from __future__ import annotations

import ast
import json
import os
import random
import subprocess
import sys
import textwrap
from pathlib import Path


def _modules_after(code: str) -> set[str]:
    script = textwrap.dedent(code) + "\nimport sys\nprint(' '.join(sorted(sys.modules)))\n"
    output = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    return set(output.stdout.split())


def test_linting_a_tree_with_every_rule_never_imports_torch(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("import torch\nx = torch.ones(3).cuda()\n")
    modules = _modules_after(
        f"""
        from torchcheck.cli import main
        main(["lint", "--no-cache", "--select", "ALL", "--exit-zero", "--quiet", {str(tmp_path)!r}])
        """
    )
    assert "torchcheck.rules.devices.transfer_after_construction" in modules
    assert "torch" not in modules and "numpy" not in modules


def test_importing_torchcheck_imports_neither_torch_nor_libcst() -> None:
    modules = _modules_after("import torchcheck, torchcheck.config")
    assert "torch" not in modules and "libcst" not in modules


def _imported_roots(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    roots = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            roots.add(node.module.split(".")[0])
    return roots


def test_engine_cli_and_rules_never_import_torch_or_pytest_anywhere() -> None:
    source_root = Path(__file__).resolve().parents[2] / "src" / "torchcheck"
    paths = [source_root / "cli.py", source_root / "config.py", *(source_root / "lint").rglob("*.py"), *(source_root / "rules").rglob("*.py")]
    for path in paths:
        assert not _imported_roots(path) & {"torch", "pytest", "numpy"}, path


def test_runtime_checks_never_import_pytest() -> None:
    source_root = Path(__file__).resolve().parents[2] / "src" / "torchcheck"
    for path in (source_root / "checks").rglob("*.py"):
        assert "pytest" not in _imported_roots(path), path


def _hash_seed_sample() -> list[str]:
    """Every multi-file project of the corpus (cross-file findings go through the project
    index, where set and dict order could leak into the output) and a fixed, seeded sample of
    its single files: a third of the corpus, the same paths in every run."""
    corpus = Path(__file__).resolve().parents[2] / "fixtures" / "lint"
    single_files = random.Random(21).sample(sorted(corpus.glob("*.py")), 12)
    return [str(corpus / "projects"), *map(str, sorted(single_files))]


def test_output_is_identical_under_different_hash_seeds() -> None:
    paths = _hash_seed_sample()
    outputs = set()
    for seed in ("0", "1", "12345"):
        environment = {**os.environ, "PYTHONHASHSEED": seed}
        command = [sys.executable, "-m", "torchcheck", "lint", "--no-cache", "--select", "ALL", "--output-format", "json", *paths]
        outputs.add(subprocess.run(command, capture_output=True, text=True, env=environment).stdout)
    assert len(outputs) == 1
    findings = json.loads(outputs.pop())
    assert len({finding["filename"] for finding in findings}) >= 20  # the sample's files are linted
