"""Steps split between methods of one object: ``fit()`` calls ``self.train_epoch()``, which
trains ``self.model``, and ``self.validate()``, which leaves it in eval mode (TCK106). A
method that runs a module only under ``no_grad()`` (a frozen teacher) does not train it."""

from __future__ import annotations

from tests.rules.examples import findings
from torchcheck.lint.registry import all_rules

TRAINER = """
import torch

class Trainer:
    def __init__(self, model, optimizer, loader):
        self.model = model
        self.optimizer = optimizer
        self.loader = loader

    def fit(self, epochs):
        for epoch in range(epochs):
            self.train_epoch()
            self.{evaluate}()

    def train_epoch(self):
        for x, y in self.loader:
            self.optimizer.zero_grad()
            loss = self.model(x).sum()
            loss.backward()
            self.optimizer.step()

    def validate(self):
        self.model.eval()
        with torch.no_grad():
            for x, y in self.loader:
                self.model(x)

    def validate_and_restore(self):
        self.validate()
        self.model.train()
"""

DISTILLER = """
import torch

class Distiller:
    def __init__(self, student, teacher, optimizer, loader):
        self.student, self.teacher = student, teacher
        self.optimizer, self.loader = optimizer, loader

    def fit(self, epochs):
        for epoch in range(epochs):
            self.freeze_teacher()
            self.train_epoch()

    def freeze_teacher(self):
        self.teacher.eval()

    def train_epoch(self):
        for x, y in self.loader:
            with torch.no_grad():
                target = self.teacher(x)
            self.optimizer.zero_grad()
            loss = (self.student(x) - target).pow(2).mean()
            loss.backward()
            self.optimizer.step()
"""


def test_a_validation_method_that_leaves_eval_mode_in_a_loop_of_training_methods() -> None:
    assert findings(TRAINER.format(evaluate="validate"), all_rules()) == [(13, "TCK106")]


def test_a_validation_method_that_restores_training_mode() -> None:
    assert findings(TRAINER.format(evaluate="validate_and_restore"), all_rules()) == []


def test_a_frozen_teacher_run_under_no_grad_is_not_trained() -> None:
    assert findings(DISTILLER, all_rules()) == []
