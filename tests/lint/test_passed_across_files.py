"""A parameter of a function that the other files of the project call holds what every one
of those calls passes: a model whose ``forward`` ends with a softmax, called and fed to a
logits loss, is reported in the callee's file (TCK605)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from torchcheck.lint.api import LintOptions, lint

MODEL = """
import torch.nn.functional as F
from torch import nn

class SoftHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 3)
    def forward(self, x):
        return F.softmax(self.fc(x), dim=1)

class LogitHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 3)
    def forward(self, x):
        return self.fc(x)
"""

TRAIN = """
from torch import nn

def fit(classifier, loader, optimizer):
    criterion = nn.CrossEntropyLoss()
    for x, y in loader:
        loss = criterion(classifier(x), y)
        loss.backward()
        optimizer.step()
"""


def _lint(tmp_path: Path, main: str) -> list[tuple[str, int]]:
    (tmp_path / "model.py").write_text(textwrap.dedent(MODEL), encoding="utf-8")
    (tmp_path / "train.py").write_text(textwrap.dedent(TRAIN), encoding="utf-8")
    (tmp_path / "main.py").write_text(textwrap.dedent(main), encoding="utf-8")
    result = lint(LintOptions(paths=(tmp_path,), select=("TCK605",), use_cache=False))
    return sorted((Path(d.filename).name, d.location.row) for d in result.diagnostics)


def test_the_model_every_caller_passes_decides_what_its_parameter_returns(tmp_path: Path) -> None:
    main = """
    import torch
    import train
    from model import SoftHead
    head = SoftHead().cuda()
    train.fit(head, loader, optimizer)
    """
    assert _lint(tmp_path, main) == [("train.py", 7)]


def test_callers_that_disagree_or_pass_a_logits_model_leave_the_parameter_unknown(tmp_path: Path) -> None:
    main = """
    import torch
    from train import fit
    from model import LogitHead, SoftHead
    fit(LogitHead(), loader, optimizer)
    fit(classifier=SoftHead(), loader=loader, optimizer=optimizer)
    """
    assert _lint(tmp_path, main) == []
    assert _lint(tmp_path, "import torch\nfrom train import fit\nfrom model import LogitHead\nfit(LogitHead(), loader, opt)\n") == []


CLIENT = """
from torch import nn

class LocalUpdate:
    def __init__(self, loader):
        self.loader = loader
        self.loss_func = nn.CrossEntropyLoss()

    def train(self, net, optimizer):
        for x, y in self.loader:
            loss = self.loss_func(net(x), y)
            loss.backward()
            optimizer.step()
"""


def _lint_client(tmp_path: Path, main: str) -> list[tuple[str, int]]:
    (tmp_path / "client.py").write_text(textwrap.dedent(CLIENT), encoding="utf-8")
    return _lint(tmp_path, main)


def test_a_method_parameter_holds_what_the_calls_on_instances_in_other_files_pass(tmp_path: Path) -> None:
    main = """
    import copy
    import torch
    from client import LocalUpdate
    from model import SoftHead
    global_net = SoftHead().cuda()
    for round in range(10):
        local = LocalUpdate(loader)
        local.train(net=copy.deepcopy(global_net).cuda(), optimizer=optimizer)
    """
    assert _lint_client(tmp_path, main) == [("client.py", 11)]


def test_a_method_whose_callers_pass_a_logits_model_stays_silent(tmp_path: Path) -> None:
    main = """
    import torch
    from client import LocalUpdate
    from model import LogitHead
    local = LocalUpdate(loader)
    local.train(LogitHead(), optimizer)
    """
    assert _lint_client(tmp_path, main) == []


DETECTOR = """
import torch
from torch import nn

class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.pred = nn.Conv2d(8, 6, 1)

    def forward(self, features):
        p = self.pred(features)
        return p[:, :4], {activation}(p[:, 4:5]), {activation}(p[:, 5:])

class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Conv2d(3, 8, 3)
        self.head = Head()

    def forward(self, images):
        return self.head(self.backbone(images))
"""
DETECTION_LOSS = """
from torch import nn

class DetectionLoss(nn.Module):
    def __init__(self):
        super().__init__()
        self.bce = nn.BCEWithLogitsLoss()

    def forward(self, box, objectness, classes, target):
        return (box - target[:, :4]).abs().mean() + self.bce(objectness, target[:, 4:5]) + self.bce(classes, target[:, 5:])
"""
TRAIN_DETECTOR = """
import torch
from detection_loss import DetectionLoss
from detector import Detector

model = Detector().cuda()
criterion = DetectionLoss()
for images, targets in loader:
    box, objectness, classes = model(images)
    criterion(box, objectness, classes, targets).backward()
"""


def test_a_loss_module_holds_the_elements_of_the_output_other_files_hand_its_forward(tmp_path: Path) -> None:
    """What a model returns, element by element, also through a part of it (``return
    self.head(...)``), reaches the ``forward`` parameters of a loss module that other files call."""
    (tmp_path / "detection_loss.py").write_text(textwrap.dedent(DETECTION_LOSS), encoding="utf-8")
    (tmp_path / "main.py").write_text(textwrap.dedent(TRAIN_DETECTOR), encoding="utf-8")
    for activation, expected in (("torch.sigmoid", [("detection_loss.py", 10), ("detection_loss.py", 10)]), ("torch.tanh", [])):
        (tmp_path / "detector.py").write_text(textwrap.dedent(DETECTOR.format(activation=activation)), encoding="utf-8")
        result = lint(LintOptions(paths=(tmp_path,), select=("TCK605",), use_cache=False))
        assert sorted((Path(d.filename).name, d.location.row) for d in result.diagnostics) == expected


STEP = """
def train_epoch(model, loader, optimizer, criterion):
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
"""


def _lint_step(tmp_path: Path, main: str) -> list[tuple[str, int]]:
    (tmp_path / "step.py").write_text(textwrap.dedent(STEP), encoding="utf-8")
    return _lint(tmp_path, main)


def test_a_loss_parameter_runs_the_loss_every_caller_in_other_files_passes(tmp_path: Path) -> None:
    main = """
    import torch
    from torch import nn
    from model import SoftHead
    from step import train_epoch
    criterion = nn.CrossEntropyLoss().to("cuda")
    train_epoch(SoftHead(), loader, optimizer, criterion)
    """
    assert _lint_step(tmp_path, main) == [("step.py", 5)]
    functional = "import torch.nn.functional as F\nfrom model import SoftHead\nfrom step import train_epoch\ntrain_epoch(SoftHead(), loader, opt, F.nll_loss)\n"
    assert _lint_step(tmp_path, functional) == [("step.py", 5)]


def test_a_loss_parameter_given_a_loss_that_takes_probabilities_or_a_logits_model_stays_silent(tmp_path: Path) -> None:
    main = """
    from torch import nn
    from model import LogitHead, SoftHead
    from step import train_epoch
    train_epoch(SoftHead(), loader, optimizer, nn.BCELoss())
    train_epoch(LogitHead(), loader, optimizer, nn.CrossEntropyLoss())
    """
    assert _lint_step(tmp_path, main) == []
    mixed = "from torch import nn\nfrom model import SoftHead\nfrom step import train_epoch\ntrain_epoch(SoftHead(), l, o, nn.CrossEntropyLoss())\ntrain_epoch(SoftHead(), l, o, nn.MSELoss())\n"
    assert _lint_step(tmp_path, mixed) == []


STEPS = """
from torch import nn

def forward_step(model, x, y, criterion):
    return criterion(model(x), y)

def train_epoch(model, loader, optimizer, criterion):
    for x, y in loader:
        forward_step(model, x, y, criterion).backward()
        optimizer.step()

def evaluate(model, loader, criterion):
    return [forward_step(model, x, y, criterion).item() for x, y in loader]
"""


def test_a_helper_whose_callers_pass_on_their_own_parameters_holds_what_all_of_them_receive(tmp_path: Path) -> None:
    (tmp_path / "steps.py").write_text(textwrap.dedent(STEPS), encoding="utf-8")
    agree = """
    import torch
    from torch import nn
    from steps import evaluate, train_epoch
    from model import {train}, {evaluated}
    criterion = nn.CrossEntropyLoss()
    train_epoch({train}(), loader, optimizer, criterion)
    evaluate({evaluated}(), loader, criterion)
    """
    assert _lint(tmp_path, agree.format(train="SoftHead", evaluated="SoftHead")) == [("steps.py", 5)]
    assert _lint(tmp_path, agree.format(train="SoftHead", evaluated="LogitHead")) == []  # one caller passes a logits model
    assert _lint(tmp_path, agree.format(train="LogitHead", evaluated="LogitHead")) == []
