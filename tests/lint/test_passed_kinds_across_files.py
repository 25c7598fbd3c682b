"""What the other files of the project pass for a parameter tells its kind: a tensor (the
caller's code shows one) copied by ``torch.tensor()`` (TCK704) or moved with its result
discarded (TCK202), and an instance of a module class stored from a constructor argument
whose ``forward`` is called directly (TCK105)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from torchcheck.lint.api import LintOptions, lint

UTILS = """
import torch
import torch.distributed as dist

def reduce_mean(value, n):
    reduced = torch.tensor(value).cuda()
    dist.all_reduce(reduced)
    return reduced / n

def move(batch, device):
    batch.to(device)
    return batch
"""

WRAPPERS = """
import torch.nn as nn

class Renamed(nn.Module):
    def __init__(self, inner, names):
        super().__init__()
        self.inner = inner
        self.names = names

    def forward(self, *args):
        return self.inner.forward(*args)
"""

MODEL = """
import torch.nn as nn

class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)

class Table:
    def forward(self, x):
        return x
"""


def _lint(tmp_path: Path, main: str, select: str) -> list[tuple[str, int]]:
    for name, text in (("utils.py", UTILS), ("wrappers.py", WRAPPERS), ("model.py", MODEL), ("main.py", main)):
        (tmp_path / name).write_text(textwrap.dedent(text), encoding="utf-8")
    result = lint(LintOptions(paths=(tmp_path,), select=(select,), use_cache=False))
    return sorted((Path(d.filename).name, d.location.row) for d in result.diagnostics)


TENSOR_CALLER = """
import torch
from utils import move, reduce_mean

def report(model, x, n, device):
    loss = model(x).mean()
    move(torch.zeros(3), device)
    return reduce_mean(loss.detach(), n)
"""

NUMBER_CALLER = """
from utils import move, reduce_mean

def report(correct, n, batch, device):
    move(batch, device)
    return reduce_mean(float(correct), n)
"""


def test_a_tensor_every_other_file_passes_is_copied_by_torch_tensor(tmp_path: Path) -> None:
    assert _lint(tmp_path, TENSOR_CALLER, "TCK704") == [("utils.py", 6)]


def test_a_number_passed_by_another_file_stays_silent(tmp_path: Path) -> None:
    assert _lint(tmp_path, NUMBER_CALLER, "TCK704") == []


def test_a_tensor_other_files_pass_is_moved_with_its_result_discarded(tmp_path: Path) -> None:
    assert _lint(tmp_path, TENSOR_CALLER, "TCK202") == [("utils.py", 11)]
    assert _lint(tmp_path, NUMBER_CALLER, "TCK202") == []


def test_a_constructor_argument_other_files_fill_with_a_module_is_one(tmp_path: Path) -> None:
    main = "from model import Encoder\nfrom wrappers import Renamed\n\nwrapped = Renamed(Encoder(), {'x': 'y'})\n"
    assert _lint(tmp_path, main, "TCK105") == [("wrappers.py", 11)]


def test_a_constructor_argument_filled_with_a_plain_object_stays_silent(tmp_path: Path) -> None:
    main = "from model import Table\nfrom wrappers import Renamed\n\nwrapped = Renamed(Table(), {'x': 'y'})\n"
    assert _lint(tmp_path, main, "TCK105") == []
