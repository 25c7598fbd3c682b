"""Summaries record a ``backward()`` run while a module is surely in eval mode: the function
trains that module in eval mode on purpose (the linear-probe protocol)."""

from __future__ import annotations

from tests.lint.test_summaries import summaries
from torchcheck.lint.summaries import BACKWARD_IN_EVAL, Certainty

MUST, MAY = Certainty.MUST, Certainty.MAY


def trained_in_eval(source: str, function: str) -> set[tuple[str, Certainty]]:
    summary = summaries(source)[function]
    return {(effect.target, effect.certainty) for effect in summary.effects if effect.action == BACKWARD_IN_EVAL}


def test_backward_after_eval_in_the_same_function_trains_the_module_in_eval_mode() -> None:
    source = """
        def train(loader, model, criterion, optimizer):
            model.eval()
            for x, y in loader:
                loss = criterion(model(x), y)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
        """
    assert trained_in_eval(source, "train") == {("model", MAY)}


def test_backward_on_every_path_after_eval_is_certain() -> None:
    source = """
        def step(model, batch):
            model.eval()
            model(batch).sum().backward()
        """
    assert trained_in_eval(source, "step") == {("model", MUST)}


def test_eval_after_backward_is_an_evaluation_not_training_in_eval_mode() -> None:
    source = """
        def train_and_validate(model, loader, optimizer):
            for x, y in loader:
                model(x).sum().backward()
                optimizer.step()
            model.eval()
            return evaluate(model)
        """
    assert trained_in_eval(source, "train_and_validate") == set()


def test_eval_on_only_one_branch_does_not_count() -> None:
    source = """
        def step(model, batch, frozen):
            if frozen:
                model.eval()
            model(batch).sum().backward()
        """
    assert trained_in_eval(source, "step") == set()


def test_eval_set_by_a_helper_of_the_file_counts_and_reaches_the_caller_through_its_argument() -> None:
    source = """
        def freeze(net):
            net.eval()

        def probe(model, batch):
            freeze(model)
            model(batch).sum().backward()

        def fit(backbone, batches):
            for batch in batches:
                probe(backbone, batch)
        """
    assert trained_in_eval(source, "probe") == {("model", MUST)}
    assert trained_in_eval(source, "fit") == {("backbone", MAY)}


def test_a_scheduler_step_after_validating_is_not_training() -> None:
    source = """
        def validate(model, loader, scheduler):
            model.eval()
            loss = sum(model(x).sum().item() for x in loader)
            scheduler.step(loss)
        """
    assert trained_in_eval(source, "validate") == set()
