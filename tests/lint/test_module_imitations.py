"""A value the code only uses as a module (``list(mac.parameters())``) may be an instance of
a plain class of the project that imitates one, with its own ``forward`` and ``parameters``:
TCK105 then stays silent, in whichever file that class lives."""

from __future__ import annotations

import textwrap
from pathlib import Path

from torchcheck.lint.api import LintOptions, lint

LEARNER = """
import copy
import torch

class Learner:
    def __init__(self, mac, lr):
        self.mac = mac
        self.params = list(mac.parameters())
        self.optimiser = torch.optim.RMSprop(self.params, lr=lr)

    def train(self, batch, steps):
        outs = []
        for t in range(steps):
            outs.append(self.mac.forward(batch, t=t))
        loss = torch.stack(outs).pow(2).mean()
        self.optimiser.zero_grad()
        loss.backward()
        self.optimiser.step()
"""

PLAIN_CONTROLLER = """
class Controller:
    def __init__(self, agent):
        self.agent = agent

    def forward(self, batch, t):
        return self.agent(batch[:, t])

    def parameters(self):
        return self.agent.parameters()
"""

MODULE_CONTROLLER = """
import torch.nn as nn

class Controller(nn.Module):
    def __init__(self, agent):
        super().__init__()
        self.agent = agent

    def forward(self, batch, t):
        return self.agent(batch[:, t])
"""


def _lint(tmp_path: Path, controller: str) -> list[tuple[str, int]]:
    (tmp_path / "learners").mkdir()
    (tmp_path / "learners" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "learners" / "learner.py").write_text(textwrap.dedent(LEARNER), encoding="utf-8")
    (tmp_path / "controllers").mkdir()
    (tmp_path / "controllers" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "controllers" / "controller.py").write_text(textwrap.dedent(controller), encoding="utf-8")
    result = lint(LintOptions(paths=(tmp_path,), select=("TCK105",), use_cache=False))
    return sorted((Path(d.filename).name, d.location.row) for d in result.diagnostics)


def test_a_plain_class_with_forward_and_parameters_may_be_what_reaches_it(tmp_path: Path) -> None:
    assert _lint(tmp_path, PLAIN_CONTROLLER) == []


def test_with_only_module_classes_the_direct_forward_call_is_reported(tmp_path: Path) -> None:
    assert _lint(tmp_path, MODULE_CONTROLLER) == [("learner.py", 14)]
