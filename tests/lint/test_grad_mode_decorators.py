"""A decorator the file cannot read may turn gradients off: one defined in the file is read
there, one imported from another file of the project stands as a condition on the findings
that need gradients on (its module must spell no grad-off API), and a library's holds it."""

from __future__ import annotations

import textwrap
from pathlib import Path

from torchcheck.lint.api import LintOptions, lint

EVALUATE = """
@{decorator}
def evaluate_{name}(model, loader, criterion):
    total = 0
    for x, y in loader:
        total += criterion(model(x), y)
    return total
"""


def _project(root: Path) -> Path:
    files = {
        "utils/__init__.py": "",
        "utils/torch_utils.py": """
            import torch

            def smart_inference_mode():
                def decorate(fn):
                    return torch.inference_mode()(fn)
                return decorate
        """,
        "utils/timing.py": "def timed(fn):\n    return fn\n",
        "val.py": "\n".join(
            [
                "import torch\nimport hydra\nfrom utils.torch_utils import smart_inference_mode\nfrom utils.timing import timed\n",
                "def local_no_grad(fn):\n    return torch.no_grad()(fn)\n",
                EVALUATE.format(decorator="smart_inference_mode()", name="imported_off"),
                EVALUATE.format(decorator="local_no_grad", name="local_off"),
                EVALUATE.format(decorator="timed", name="imported_plain"),
                EVALUATE.format(decorator='hydra.main(config_path=".")', name="library"),
            ]
        ),
    }
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


def test_only_the_decorators_that_may_turn_gradients_off_silence_a_kept_loss(tmp_path: Path) -> None:
    root = _project(tmp_path)
    source = (root / "val.py").read_text().splitlines()
    result = lint(LintOptions(paths=(root / "val.py",), select=("TCK101",), use_cache=False))
    functions = []
    for diagnostic in result.diagnostics:
        above = source[: diagnostic.location.row]
        functions.append(next(line for line in reversed(above) if line.startswith("def ")).split("(")[0])
    assert functions == ["def evaluate_imported_plain", "def evaluate_library"]


def test_a_function_nested_in_a_no_grad_function_runs_without_gradients(tmp_path: Path) -> None:
    code = """
    import torch

    @torch.no_grad()
    def test(model, splits, loader):
        def test_split(split):
            predictions = []
            for batch in loader:
                predictions += [model(batch)]
            return torch.cat(predictions)
        return [test_split(split) for split in splits]

    def kept(model, loader):
        def collect():
            predictions = []
            for batch in loader:
                predictions += [model(batch)]
            return predictions
        return collect()
    """
    (tmp_path / "evaluate.py").write_text(textwrap.dedent(code), encoding="utf-8")
    result = lint(LintOptions(paths=(tmp_path,), select=("TCK101",), use_cache=False))
    assert [d.location.row for d in result.diagnostics] == [17]
