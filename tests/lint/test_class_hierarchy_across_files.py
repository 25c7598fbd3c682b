"""A class is an ``nn.Module`` when its bases reach one, whichever file of the project
defines them: the module rules see ``class Head(Block)`` with ``Block`` imported from
another file, and stay silent when the base is a library's class that is no torch module."""

from __future__ import annotations

import textwrap
from pathlib import Path

from torchcheck.lint.api import LintOptions, lint

LAYERS = """
import torch.nn as nn

class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
"""
HEADS = """
import torch.nn as nn
import torch.nn.functional as F
from {module} import Block

class Head(Block):
    def __init__(self):
        self.out = nn.Linear(4, 2)

class Tower(Block):
    def __init__(self):
        super().__init__()
        self.blocks = [nn.Linear(4, 4) for _ in range(3)]

    def forward(self, x):
        return F.dropout(x, 0.1)

class Deeper(Head):
    def __init__(self):
        pass
"""
EXPECTED = [("heads.py", 7, "TCK603"), ("heads.py", 13, "TCK601"), ("heads.py", 16, "TCK604"), ("heads.py", 19, "TCK603")]


def _findings(root: Path, *paths: str) -> list[tuple[str, int, str]]:
    options = LintOptions(paths=tuple(root / path for path in paths) or (root,), select=("TCK6",), use_cache=False)
    result = lint(options)
    return sorted((Path(d.filename).name, d.location.row, d.code) for d in result.diagnostics)


def _project(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def test_a_base_class_from_another_file_makes_a_module(tmp_path: Path) -> None:
    root = _project(tmp_path, {"layers.py": LAYERS, "heads.py": HEADS.format(module="layers")})
    assert _findings(root) == EXPECTED


def test_the_other_file_is_read_when_only_one_file_is_linted(tmp_path: Path) -> None:
    root = _project(tmp_path, {"layers.py": LAYERS, "heads.py": HEADS.format(module="layers")})
    assert _findings(root, "heads.py") == EXPECTED


def test_the_hierarchy_is_followed_through_several_files_and_packages(tmp_path: Path) -> None:
    files = {
        "pkg/__init__.py": "from .base import Base\n",
        "pkg/base.py": "import torch\n\nclass Base(torch.nn.Module):\n    pass\n",
        "layers.py": "from pkg import Base\n\nclass Block(Base):\n    pass\n",
        "heads.py": HEADS.format(module="layers"),
    }
    assert _findings(_project(tmp_path, files)) == EXPECTED


def test_a_library_base_that_is_no_torch_module_keeps_the_rules_silent(tmp_path: Path) -> None:
    files = {"heads.py": HEADS.format(module="flax.linen")}
    assert _findings(_project(tmp_path, files)) == []


def test_a_project_base_that_is_no_module_keeps_the_rules_silent(tmp_path: Path) -> None:
    files = {"layers.py": "class Block:\n    def __init__(self):\n        self.size = 4\n", "heads.py": HEADS.format(module="layers")}
    assert _findings(_project(tmp_path, files)) == []


def test_an_instance_of_a_module_class_of_another_file_is_a_module(tmp_path: Path) -> None:
    files = {
        "layers.py": LAYERS,
        "model.py": """
            from layers import Block
            from helpers import Config

            class Net:
                def __init__(self):
                    self.block = Block()
                    self.config = Config()

                def run(self, x):
                    self.config.forward(x)
                    return self.block.forward(x)
        """,
        "helpers.py": "class Config:\n    def forward(self, x):\n        return x\n",
    }
    root = _project(tmp_path, files)
    result = lint(LintOptions(paths=(root,), select=("TCK105",), use_cache=False))
    assert sorted((Path(d.filename).name, d.location.row) for d in result.diagnostics) == [("model.py", 12)]


def test_an_instance_moved_to_a_device_stays_a_module_in_the_functions_that_use_it(tmp_path: Path) -> None:
    files = {
        "layers.py": LAYERS,
        "helpers.py": "class Config:\n    def forward(self, x):\n        return x\n\n    def to(self, device):\n        return self\n",
        "train.py": """
            import torch
            from layers import Block
            from helpers import Config

            device = torch.device("cpu")
            online = Block().to(device)
            target = Block().cuda().eval()
            config = Config().to(device)

            def learn(x):
                config.forward(x)
                return online.forward(x) + target.forward(x)
        """,
    }
    result = lint(LintOptions(paths=(_project(tmp_path, files),), select=("TCK105",), use_cache=False))
    assert sorted(d.location.row for d in result.diagnostics) == [13, 13]


def test_a_parameter_annotated_with_a_module_class_of_another_file_is_a_module(tmp_path: Path) -> None:
    files = {
        "layers.py": LAYERS,
        "helpers.py": "class Config:\n    def forward(self, x):\n        return x\n",
        "solve.py": """
            from layers import Block
            from helpers import Config

            def solve(operator: Block, config: Config, x):
                config.forward(x)
                return operator.forward(x)
        """,
    }
    result = lint(LintOptions(paths=(_project(tmp_path, files),), select=("TCK105",), use_cache=False))
    assert [d.location.row for d in result.diagnostics] == [7]


def test_instances_of_a_module_class_of_another_file_in_a_plain_list_are_unregistered(tmp_path: Path) -> None:
    cells = """
    import torch.nn as nn

    class Cell(nn.Module):
        def __init__(self, size):
            super().__init__()
            self.fc = nn.Linear(size, size)

    class Settings:
        def __init__(self, size):
            self.size = size
    """
    model = """
    import torch.nn as nn
    from cells import Cell, Settings

    class Stack(nn.Module):
        def __init__(self, depth):
            super().__init__()
            self.cells = []
            for _ in range(depth):
                self.cells.append(Cell(8))
            self.settings = [Settings(8) for _ in range(depth)]
            self.pair = [Cell(8), Cell(4)]
            self.named = []
            for _ in range(depth):
                cell = Cell(8)
                self.named.append(cell)
            self.configs = []
            for _ in range(depth):
                settings = Settings(8)
                self.configs.append(settings)
    """
    root = _project(tmp_path, {"cells.py": cells, "model.py": model})
    assert _findings(root) == [("model.py", 8, "TCK601"), ("model.py", 12, "TCK601"), ("model.py", 13, "TCK601")]


PARALLEL = """
from torch import nn

class CustomDataParallel(nn.DataParallel):
    def __init__(self, module, num_gpus):
        super().__init__(module)
        self.num_gpus = num_gpus

class Shifted(CustomDataParallel):
    pass

class Holder(nn.Module):
    def __init__(self, module, num_gpus):
        super().__init__()
        self.module = module
"""
TRAIN_WRAPPED = """
import torch
from parallel import {wrapper}

def train(model, loader, num_gpus):
    if num_gpus > 1:
        model = {wrapper}(model, num_gpus)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x in loader:
        model(x).sum().backward()
        optimizer.step()
"""


def test_a_data_parallel_subclass_of_another_file_is_data_parallel(tmp_path: Path) -> None:
    for wrapper in ("CustomDataParallel", "Shifted", "Holder"):
        root = tmp_path / wrapper
        root.mkdir()
        _project(root, {"parallel.py": PARALLEL, "train.py": TRAIN_WRAPPED.format(wrapper=wrapper)})
        result = lint(LintOptions(paths=(root / "train.py",), select=("TCK204",), use_cache=False))
        found = [(Path(d.filename).name, d.location.row) for d in result.diagnostics]
        assert found == ([] if wrapper == "Holder" else [("train.py", 7)]), wrapper


DIST = """
class BaseModel:
    def forward(self, a, b):
        return a - b

class DistModel(BaseModel):
    pass
"""
LOSS = """
import torch
import dist

class PerceptualLoss(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.model = dist.DistModel()

    def forward(self, pred, target):
        return self.model.forward(target, pred)
"""


def test_a_name_that_suggests_a_module_yields_to_the_class_that_made_it(tmp_path: Path) -> None:
    root = _project(tmp_path, {"dist.py": DIST, "loss.py": LOSS})
    result = lint(LintOptions(paths=(root,), select=("TCK105",), use_cache=False))
    assert [d.location.row for d in result.diagnostics] == []
    (root / "dist.py").write_text(textwrap.dedent(DIST.replace("class BaseModel:", "import torch\nclass BaseModel(torch.nn.Module):")), encoding="utf-8")
    result = lint(LintOptions(paths=(root,), select=("TCK105",), use_cache=False))
    assert [(Path(d.filename).name, d.location.row) for d in result.diagnostics] == [("loss.py", 11)]


NETS = """
import torch

class GrowingNet{base}:
    def __init__(self, rate):
        self.rate = rate

    def forward(self, x):
        return self.rate * x

    @classmethod
    def from_file(cls, path):
        saved = torch.load(path, weights_only=True)
        net = cls(saved["rate"])
        return net
"""
PREDICT = """
import torch
from nets import GrowingNet

class Predictor:
    def predict(self, loader, path):
        self.model = GrowingNet.from_file(path)
        with torch.no_grad():
            return [self.model.forward(x) for x in loader]
"""


def test_an_alternative_constructor_makes_an_instance_of_its_class(tmp_path: Path) -> None:
    """``Cls.from_file(path)`` returning ``cls(...)`` is a module exactly when ``Cls`` is."""
    root = _project(tmp_path, {"nets.py": NETS.format(base=""), "predict.py": PREDICT})
    assert lint(LintOptions(paths=(root,), select=("TCK105",), use_cache=False)).diagnostics == ()
    (root / "nets.py").write_text(textwrap.dedent(NETS.format(base="(torch.nn.Module)")), encoding="utf-8")
    result = lint(LintOptions(paths=(root / "predict.py",), select=("TCK105",), use_cache=False))
    assert [(Path(d.filename).name, d.location.row) for d in result.diagnostics] == [("predict.py", 9)]


MASKED = """
import torch
from {module} import Block

class Masked(Block):
    def __init__(self):
        super().__init__()
        self.mask = torch.ones(4, 4)

    def forward(self, x):
        return x * self.mask
"""


def test_rules_that_decide_at_the_end_of_the_file_follow_project_bases_too(tmp_path: Path) -> None:
    module = _project(tmp_path / "module", {"layers.py": LAYERS, "masked.py": MASKED.format(module="layers")})
    assert _findings(module) == [("masked.py", 8, "TCK606")]
    plain = {"layers.py": "class Block:\n    def __init__(self):\n        self.size = 4\n", "masked.py": MASKED.format(module="layers")}
    assert _findings(_project(tmp_path / "plain", plain)) == []
