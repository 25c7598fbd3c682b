"""TCK114 follows the module's mode through the evaluation function, its callers in the same
file and the way the module was built."""

from __future__ import annotations

import textwrap

from torchcheck.lint.engine import lint_source
from torchcheck.lint.registry import rules_by_code


def messages(source: str) -> list[tuple[int, str]]:
    result = lint_source(textwrap.dedent(source).encode(), "evaluate.py", rules_by_code(["TCK114"]))
    return [(diagnostic.location.row, diagnostic.message) for diagnostic in result.diagnostics]


def test_evaluation_in_train_mode_names_the_caller_that_never_switched_to_eval() -> None:
    found = messages(
        """
        import torch

        def evaluate(model, loader):
            with torch.no_grad():
                return [model(x) for x in loader]

        def fit(model, optimizer, train_loader, val_loader):
            for x, y in train_loader:
                optimizer.zero_grad()
                criterion(model(x), y).backward()
                optimizer.step()
            return evaluate(model, val_loader)
        """
    )
    assert found == [
        (
            6,
            "`model(x)` runs `model` in training mode in an evaluation function: neither this function nor "
            "`fit()`, which calls it at line 13, switches it to `eval()`; dropout and batch-norm statistics stay live",
        )
    ]


def test_evaluation_after_a_caller_switched_to_eval_is_not_reported() -> None:
    assert messages(
        """
        import torch

        def evaluate(model, loader):
            with torch.no_grad():
                return [model(x) for x in loader]

        def fit(model, optimizer, train_loader, val_loader):
            model.train()
            for x, y in train_loader:
                criterion(model(x), y).backward()
                optimizer.step()
            model.eval()
            return evaluate(model, val_loader)
        """
    ) == []


def test_evaluation_through_two_callers_is_judged_at_the_outer_one() -> None:
    source = """
        import torch

        def evaluate(model, loader):
            with torch.no_grad():
                return [model(x) for x in loader]

        def run_validation(net, loader):
            return evaluate(net, loader)

        def main(net, loader):
            {switch}
            run_validation(net, loader)
        """
    assert messages(source.format(switch="net.eval()")) == []
    assert messages(source.format(switch="pass")) == []  # main() may be called from another file


def test_a_module_built_and_evaluated_in_the_same_function_is_reported_without_callers() -> None:
    found = messages(
        """
        import torch
        import torchvision

        def evaluate(loader):
            net = torchvision.models.resnet50(weights="DEFAULT")
            with torch.no_grad():
                return [net(x).argmax(1) for x in loader]
        """
    )
    assert [row for row, _ in found] == [8]
    assert "it is built here and never switched to `eval()`" in found[0][1]


def test_a_layer_that_behaves_the_same_in_both_modes_is_not_reported() -> None:
    assert messages(
        """
        import torch
        import torch.nn as nn

        def evaluate(loader):
            embedding = nn.Embedding(100, 16)
            with torch.no_grad():
                return [embedding(x) for x in loader]
        """
    ) == []


def test_only_files_with_an_evaluation_def_or_gradients_off_are_read() -> None:
    """It judges evaluation functions and loops with gradients off, so nothing else needs a parse."""
    (rule,) = rules_by_code(["TCK114"])
    assert rule.may_fire_in("def validate_epoch(model, loader):\n    ...\n")
    assert rule.may_fire_in("async def run_eval(model): ...\n")
    assert rule.may_fire_in("def test(model, loader): ...\n")
    assert rule.may_fire_in("from torch import inference_mode\n")
    assert rule.may_fire_in("torch.set_grad_enabled(False)\n")
    assert not rule.may_fire_in("class Net(nn.Module):\n    def forward(self, x):\n        return self.eval_head(x)\n")
    assert not rule.may_fire_in("def validation_step(self, batch): ...\ndef test_shapes(): ...\n")
