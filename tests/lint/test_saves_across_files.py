"""``torch.save`` of an instance of a class another file defines pickles a module exactly
when that class is one (TCK402), also inside a list or dict written in the call."""

from __future__ import annotations

import textwrap
from pathlib import Path

from torchcheck.lint.api import LintOptions, lint

MODEL = """
import torch
from torch import nn

class Policy(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.head = nn.Linear(n, 2)

class RunningMeanStd:
    def __init__(self):
        self.mean = 0.0
"""

MAIN = """
import torch
from model import Policy, RunningMeanStd

policy = Policy(4)
stats = RunningMeanStd()
torch.save([policy, stats], "policy.pt")
torch.save({"stats": stats}, "stats.pt")
torch.save([policy.state_dict(), stats], "weights.pt")
"""


def test_a_project_module_saved_in_a_list_is_reported_and_a_plain_object_is_not(tmp_path: Path) -> None:
    (tmp_path / "model.py").write_text(textwrap.dedent(MODEL), encoding="utf-8")
    (tmp_path / "main.py").write_text(textwrap.dedent(MAIN), encoding="utf-8")
    result = lint(LintOptions(paths=(tmp_path,), select=("TCK402",), use_cache=False))
    assert sorted((Path(d.filename).name, d.location.row) for d in result.diagnostics) == [("main.py", 7)]
