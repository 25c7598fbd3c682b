"""Findings that span two places (a loop and a helper of the same file) name the other place."""

from __future__ import annotations

import textwrap

from torchcheck.lint.engine import lint_source
from torchcheck.lint.registry import all_rules


def messages(source: str, code: str) -> list[tuple[int, str]]:
    rules = [rule for rule in all_rules() if rule.code == code]
    result = lint_source(textwrap.dedent(source).encode(), "train.py", rules)
    return [(diagnostic.location.row, diagnostic.message) for diagnostic in result.diagnostics]


def test_eval_left_on_by_a_helper_is_reported_at_the_call_and_names_the_eval() -> None:
    found = messages(
        """
        import torch

        def train(model, loader, optimizer):
            for x, y in loader:
                optimizer.zero_grad()
                criterion(model(x), y).backward()
                optimizer.step()

        def evaluate(model, loader):
            model.eval()
            with torch.no_grad():
                return sum(criterion(model(x), y).item() for x, y in loader)

        for epoch in range(10):
            train(model, train_loader, optimizer)
            evaluate(model, val_loader)
        """,
        "TCK106",
    )
    assert found == [
        (
            17,
            "Training loop never calls `train()` after `model.eval()` in `evaluate()` at line 11; "
            "later iterations train in evaluation mode",
        )
    ]


def test_an_optimizer_step_in_a_later_helper_is_named_at_the_scheduler_step() -> None:
    found = messages(
        """
        def train_one_epoch(model, optimizer, loader):
            for x, y in loader:
                optimizer.zero_grad()
                criterion(model(x), y).backward()
                optimizer.step()

        for epoch in range(10):
            scheduler.step()
            train_one_epoch(model, optimizer, loader)
        """,
        "TCK104",
    )
    assert found == [
        (
            9,
            "`scheduler.step()` runs before `optimizer.step()` in `train_one_epoch()` at line 6; "
            "the first learning-rate value is skipped",
        )
    ]


def test_a_zero_grad_helper_between_backward_and_step_is_reported_at_the_helper_call() -> None:
    found = messages(
        """
        class Trainer:
            def reset(self):
                self.optimizer.zero_grad()

            def train_step(self, batch):
                self.model(batch).mean().backward()
                self.reset()
                self.optimizer.step()
        """,
        "TCK103",
    )
    assert found == [
        (
            8,
            "`self.optimizer.zero_grad()` in `Trainer.reset()` at line 4 runs after `backward()` "
            "and before `step()`; the step sees no gradients",
        )
    ]


def test_a_helper_zeroing_gradients_through_p_grad_satisfies_missing_zero_grad() -> None:
    source = """
        def zero_grads(net):
            for p in net.parameters():
                p.grad = None

        for x, y in loader:
            zero_grads(model)
            criterion(model(x), y).backward()
            optimizer.step()
        """
    assert messages(source, "TCK102") == []
    assert messages(source.replace("zero_grads(model)", "print(model)"), "TCK102") != []
