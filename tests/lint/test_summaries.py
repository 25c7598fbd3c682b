"""Function summaries: what each function does to its parameters, resolved at call sites."""

from __future__ import annotations

import json
import textwrap

import libcst as cst

from torchcheck.lint.context import LintContext
from torchcheck.lint.idioms import Effect
from torchcheck.lint.kinds import Kind
from torchcheck.lint.summaries import (
    ANONYMOUS,
    Certainty,
    FunctionSummary,
    ModuleSummaries,
    ResolvedCall,
)
from torchcheck.lint.walker import BatchedWalker

MUST, MAY = Certainty.MUST, Certainty.MAY


def walked(source: str) -> tuple[LintContext, cst.Module]:
    module = cst.parse_module(textwrap.dedent(source))
    context = LintContext()
    BatchedWalker([context]).walk(module)
    return context, module


def summaries(source: str) -> dict[str, FunctionSummary]:
    """The summary of every function of ``source``, by qualified name."""
    context, module = walked(source)
    found: dict[str, FunctionSummary] = {}

    class _Functions(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            summary = context.summary_of(node)
            found[summary.name] = summary

    module.visit(_Functions())
    return found


def effects(summary: FunctionSummary) -> set[tuple[str, str, Certainty]]:
    """The training-protocol effects (the modules a function runs are asked about apart)."""
    return {(effect.action, effect.target, effect.certainty) for effect in summary.effects if effect.action != Effect.FORWARD}


def test_calls_on_parameters_on_every_path_are_must_and_in_one_branch_may() -> None:
    summary = summaries(
        """
        def train_step(model, optimizer, loss, log):
            optimizer.zero_grad()
            loss.backward()
            if log:
                model.eval()
            optimizer.step()
        """
    )["train_step"]
    assert effects(summary) == {
        ("zero_grad", "optimizer", MUST),
        ("backward", "loss", MUST),
        ("eval", "model", MAY),
        ("step", "optimizer", MUST),
    }


def test_a_call_in_both_branches_of_an_if_is_must_and_in_a_loop_or_try_body_may() -> None:
    summary = summaries(
        """
        def f(a, b, c, flag, items):
            if flag:
                a.step()
            else:
                a.step()
            for item in items:
                b.step()
            try:
                c.step()
            except RuntimeError:
                pass
        """
    )["f"]
    assert effects(summary) == {("step", "a", MUST), ("step", "b", MAY), ("step", "c", MAY)}


def test_an_early_return_makes_later_calls_may_and_a_raise_drops_its_path() -> None:
    found = summaries(
        """
        def early(model, done):
            if done:
                return
            model.eval()

        def checked(model, bad):
            if bad:
                raise ValueError("bad")
            model.eval()
        """
    )
    assert effects(found["early"]) == {("eval", "model", MAY)}
    assert effects(found["checked"]) == {("eval", "model", MUST)}


def test_receivers_are_parameters_self_attributes_and_module_names_but_never_locals() -> None:
    found = summaries(
        """
        import torch

        d_opt = torch.optim.Adam(d.parameters())

        def reset_grad():
            d_opt.zero_grad()

        class Trainer:
            def fit(self, batch):
                loss = self.model(batch).mean()
                loss.backward()
                self.optimizer.step()
        """
    )
    assert effects(found["reset_grad"]) == {("zero_grad", "d_opt", MUST)}
    assert effects(found["Trainer.fit"]) == {("backward", ANONYMOUS, MUST), ("step", "self.optimizer", MUST)}


def test_clearing_p_grad_over_the_parameters_counts_as_zero_grad_of_their_owner() -> None:
    found = summaries(
        """
        def clear(model):
            for p in model.parameters():
                p.grad = None

        def clear_groups(optimizer):
            for group in optimizer.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        p.grad.zero_()
        """
    )
    assert effects(found["clear"]) == {("zero_grad", "model", MAY)}
    assert effects(found["clear_groups"]) == {("zero_grad", "optimizer", MAY)}


def test_train_false_switches_to_eval_mode() -> None:
    summary = summaries("def freeze(m):\n    m.train(False)\n")["freeze"]
    assert effects(summary) == {("eval", "m", MUST)}


def test_train_with_mode_false_by_keyword_switches_to_eval_mode_and_true_stays_train() -> None:
    found = summaries(
        """
        def freeze(m):
            m.train(mode=False)
        def unfreeze(m, flag):
            m.train(mode=True)
            m.train(True, **options)
        """
    )
    assert effects(found["freeze"]) == {("eval", "m", MUST)}
    assert effects(found["unfreeze"]) == {("train", "m", MUST)}


def test_exit_modes_say_whether_every_exit_leaves_a_module_in_eval_mode() -> None:
    found = summaries(
        """
        import torch

        def evaluate(model, loader):
            model.eval()
            with torch.no_grad():
                for x in loader:
                    model(x)

        def restores(model, loader):
            model.eval()
            evaluate(model, loader)
            model.train()

        def sometimes(model, quick):
            model.eval()
            if quick:
                return
            model.train()

        def restores_in_finally(model):
            model.eval()
            try:
                run(model)
            finally:
                model.train()
        """
    )
    assert found["evaluate"].exit_mode("model").leaves_eval is MUST
    assert found["restores"].exit_mode("model").leaves_eval is None
    assert found["sometimes"].exit_mode("model").leaves_eval is MAY
    assert found["restores_in_finally"].exit_mode("model").leaves_eval is None


def test_a_helper_calling_a_helper_composes_through_the_argument_mapping() -> None:
    found = summaries(
        """
        def switch_off(net):
            net.eval()

        def validate(model, loader):
            switch_off(model)
            for batch in loader:
                model(batch)

        def epoch(model, optimizer, loader):
            validate(model, loader)
        """
    )
    assert effects(found["validate"]) == {("eval", "model", MUST)}
    assert effects(found["epoch"]) == {("eval", "model", MUST)}
    assert found["epoch"].exit_mode("model").leaves_eval is MUST
    site = found["epoch"].effect(Effect.EVAL).site
    assert (site.function, site.code) == ("switch_off", "net.eval()")


def test_keyword_arguments_and_defaults_map_onto_parameters() -> None:
    found = summaries(
        """
        def step(optimizer=None, *, scaler):
            scaler.update()
            optimizer.step()

        def run(opt, grad_scaler):
            step(scaler=grad_scaler, optimizer=opt)

        def run_default(grad_scaler):
            step(scaler=grad_scaler)
        """
    )
    assert effects(found["run"]) == {("step", "opt", MUST), ("update", "grad_scaler", MUST)}
    assert effects(found["run_default"]) == {("step", ANONYMOUS, MUST), ("update", "grad_scaler", MUST)}


def test_star_arguments_make_the_mapping_unknown() -> None:
    found = summaries(
        """
        def step(optimizer):
            optimizer.step()

        def run(*args):
            step(*args)
        """
    )
    assert effects(found["run"]) == {("step", ANONYMOUS, MUST)}


def test_mutually_recursive_helpers_reach_a_fixpoint() -> None:
    found = summaries(
        """
        def ping(model, n):
            if n:
                pong(model, n - 1)
            model.eval()

        def pong(model, n):
            model.zero_grad()
            ping(model, n)

        def countdown(model, n):
            if n:
                return countdown(model, n - 1)
            model.train()
        """
    )
    assert effects(found["ping"]) == {("eval", "model", MUST), ("zero_grad", "model", MAY)}
    assert effects(found["pong"]) == {("eval", "model", MUST), ("zero_grad", "model", MUST)}
    assert effects(found["countdown"]) == {("train", "model", MAY)}


def test_methods_call_each_other_through_self_and_inherit_from_classes_of_the_file() -> None:
    found = summaries(
        """
        class Base:
            def reset(self):
                self.optimizer.zero_grad()

        class Trainer(Base):
            def step(self):
                self.reset()
                self.scaler.step(self.optimizer)
        """
    )
    assert effects(found["Trainer.step"]) == {("zero_grad", "self.optimizer", MUST), ("step", "self.scaler", MUST)}


def test_return_values_name_modules_tensors_probabilities_and_non_contiguous_views() -> None:
    found = summaries(
        """
        import torch
        import torch.nn as nn
        import torch.nn.functional as F

        class Head(nn.Module):
            def forward(self, x):
                logits = self.fc(x)
                return F.softmax(logits, dim=-1)

            def to_device(self, device):
                return self.to(device)

        def build():
            return nn.Sequential(nn.Linear(4, 2))

        def make_head():
            return Head()

        def flip(x):
            y = x.transpose(0, 1)
            return y

        def zeros():
            return torch.zeros(3)

        def mixed(flag):
            if flag:
                return torch.zeros(3)
            return nn.Linear(2, 2)
        """
    )
    assert found["Head.forward"].returns.probabilities
    assert found["Head.to_device"].returns.kind is Kind.MODULE
    assert found["build"].returns.kind is Kind.MODULE
    assert found["make_head"].returns.kind is Kind.MODULE
    assert found["flip"].returns.non_contiguous and found["flip"].returns.kind is Kind.TENSOR
    assert found["zeros"].returns.kind is Kind.TENSOR and not found["zeros"].returns.non_contiguous
    assert found["mixed"].returns.kind is None


def test_a_returned_name_holds_what_every_assignment_reaching_the_return_may_bind() -> None:
    found = summaries(
        """
        import numpy as np
        import torch

        def parts(x, epoch):
            aux = torch.zeros(3)
            if epoch < 5:
                aux = 0
            return x, aux

        def replaced(x):
            y = torch.zeros(3)
            y = 0
            return y

        def edges(pairs):
            index = np.array(pairs).T
            return index

        def flipped(x):
            return x.T

        def top(values, k):
            kept = torch.flip(values, dims=(0,))[:k]
            return kept.float()
        """
    )
    assert found["parts"].returns.elements == (None, Kind.TENSOR)  # a tensor on one path is a tensor
    assert found["replaced"].returns.kind is Kind.NUMBER  # only the last assignment reaches the return
    assert found["edges"].returns.kind is Kind.OTHER  # a NumPy array's transpose is no tensor
    assert found["flipped"].returns.kind is Kind.TENSOR and found["flipped"].returns.non_contiguous
    assert found["top"].returns.kind is Kind.TENSOR  # part of a tensor is a tensor


def test_summaries_round_trip_through_json_with_sorted_stable_content() -> None:
    context, module = walked(
        """
        def evaluate(model, loader, *, device="cpu", **kwargs):
            model.eval()
            loader.sampler.set_epoch(0)
            return model
        """
    )
    function = module.body[0]
    assert isinstance(function, cst.FunctionDef)
    summary = context.summary_of(function).with_lines(context.line_of)
    text = json.dumps(summary.to_dict(), sort_keys=True)
    restored = FunctionSummary.from_dict(json.loads(text))
    assert restored == summary
    assert json.dumps(restored.to_dict(), sort_keys=True) == text
    assert [effect.action for effect in restored.effects if effect.action != Effect.FORWARD] == ["eval", "set_epoch"]
    assert restored.effect(Effect.EVAL).site.describe() == "`model.eval()` in `evaluate()` at line 3"


def test_summaries_are_memoised() -> None:
    context, module = walked("def f(model):\n    model.eval()\n")
    function = module.body[0]
    assert isinstance(function, cst.FunctionDef)
    assert context.summary_of(function) is context.summary_of(function)


class _CallProbe:
    """Resolves every call to `probe_target(...)`-style calls while the walk is at them."""

    def __init__(self, context: LintContext) -> None:
        self.context = context
        self.resolved: list[tuple[str, ResolvedCall | None]] = []

    def visit_Call(self, node: cst.Call) -> None:
        text = cst.Module(body=[]).code_for_node(node.func)
        if text.endswith("helper"):
            self.resolved.append((text, self.context.resolve_call(node)))


def resolve_all(source: str) -> list[tuple[str, ResolvedCall | None]]:
    context = LintContext()
    probe = _CallProbe(context)
    BatchedWalker([context, probe]).walk(cst.parse_module(textwrap.dedent(source)))
    return probe.resolved


def _mapping(resolved: ResolvedCall | None) -> dict[str, str] | None:
    assert resolved is not None
    if resolved.arguments is None:
        return None
    return {name: cst.Module(body=[]).code_for_node(value) for name, value in resolved.arguments.items()}


def test_calls_resolve_to_functions_of_the_file_defined_before_or_after_the_caller() -> None:
    found = resolve_all(
        """
        def helper(model, loader, epochs=3):
            pass

        def main():
            helper(net, loader=data)
            later_helper(net)

        def later_helper(m):
            pass
        """
    )
    assert [name for name, _ in found] == ["helper", "later_helper"]
    assert _mapping(found[0][1]) == {"model": "net", "loader": "data", "epochs": "3"}
    assert _mapping(found[1][1]) == {"m": "net"}


def test_self_method_calls_resolve_with_self_bound_to_the_receiver() -> None:
    found = resolve_all(
        """
        class Trainer:
            def fit(self):
                self.helper(1)

            def helper(self, n):
                pass
        """
    )
    assert _mapping(found[0][1]) == {"self": "self", "n": "1"}


def test_imported_shadowed_and_unknown_names_do_not_resolve() -> None:
    found = resolve_all(
        """
        from engine import helper

        def local_helper():
            pass

        def run(local_helper):
            local_helper()
            helper()
            other.helper()
        """
    )
    assert [resolved for _, resolved in found] == [None, None, None]


def test_nested_defs_resolve_inside_their_function() -> None:
    found = resolve_all(
        """
        def main(model):
            def helper(m):
                m.eval()
            helper(model)
        """
    )
    resolved = found[0][1]
    assert resolved is not None and resolved.function.name.value == "helper"
    assert resolved.translate("m") == "model"


def test_a_call_summary_spells_the_callees_targets_as_the_caller_names_them() -> None:
    context = LintContext()
    seen: list[FunctionSummary | None] = []

    class _Calls:
        def visit_Call(self, node: cst.Call) -> None:
            if isinstance(node.func, cst.Name) and node.func.value == "evaluate":
                seen.append(context.call_summary(node))

    source = """
        def evaluate(net, loader, opt):
            net.eval()
            opt.zero_grad()
            for batch in loader:
                net(batch).sum().backward()

        evaluate(model, data, make_optimizer())
        """
    BatchedWalker([context, _Calls()]).walk(cst.parse_module(textwrap.dedent(source)))
    summary = seen[0]
    assert summary is not None
    assert effects(summary) == {
        ("eval", "model", MUST),
        ("zero_grad", ANONYMOUS, MUST),
        ("backward", ANONYMOUS, MAY),
        ("backward_in_eval", "model", MAY),  # it backpropagates with `net` in eval mode
    }
    assert [(mode.target, mode.leaves_eval) for mode in summary.exit_modes] == [("model", MUST)]


def test_names_bound_in_one_line_suites_are_locals_not_module_names() -> None:
    found = summaries(
        """
        def f(flag):
            if flag: optimizer = make_optimizer()
            optimizer.step()
        """
    )
    assert effects(found["f"]) == {("step", ANONYMOUS, MUST)}


class _CountingSummaries(ModuleSummaries):
    """Counts the structural passes, to check that cycles are not recomputed without end."""

    def __init__(self, module: cst.Module, names: LintContext) -> None:
        super().__init__(module, names)
        self.passes = 0

    def _build(self, function: cst.FunctionDef) -> FunctionSummary:
        self.passes += 1
        return super()._build(function)


def test_functions_that_all_call_each_other_are_summarised_in_a_bounded_number_of_passes() -> None:
    count = 9
    names = [f"step_{index}" for index in range(count)]
    calls = "".join(f"    if n: {name}(model, n - 1)\n" for name in names)
    context, module = walked("".join(f"def {name}(model, n):\n{calls}    model.zero_grad()\n\n" for name in names))
    counting = _CountingSummaries(module, context)
    functions = [statement for statement in module.body if isinstance(statement, cst.FunctionDef)]
    found = [counting.of(function) for function in functions]
    assert all(effects(summary) == {("zero_grad", "model", MUST)} for summary in found)
    assert counting.passes <= 4 * count  # each function at most once per round of the cycle


def test_a_method_run_on_an_instance_of_a_class_of_the_file_counts_in_its_caller() -> None:
    found = summaries(
        """
        class Trainer:
            def __init__(self, model, optimizer):
                self.model, self.optimizer = model, optimizer
            def fit(self, loader):
                for x in loader:
                    self.model(x).sum().backward()
                    self.optimizer.step()

        def chained(model, optimizer, loader):
            Trainer(model, optimizer).fit(loader)

        def through_a_local(model, optimizer, loader):
            trainer = Trainer(model, optimizer)
            trainer.fit(loader)

        def rebound(model, optimizer, loader):
            trainer = Trainer(model, optimizer)
            trainer = object()
            trainer.fit(loader)
        """
    )
    trains = lambda name: {effect.action for effect in found[name].effects} >= {Effect.BACKWARD, Effect.STEP}
    assert trains("chained") and trains("through_a_local")
    assert not trains("rebound")  # the local no longer holds the instance


def test_a_step_on_a_path_that_never_clears_is_told_apart_when_another_path_clears() -> None:
    found = summaries(
        """
        def mixed(loss, optimizer, fp16):
            loss.backward()
            if fp16:
                optimizer.step()
                optimizer.zero_grad()
            else:
                optimizer.step()

        def both_clear(loss, optimizer, fp16):
            optimizer.zero_grad()
            loss.backward()
            if fp16:
                optimizer.step()
            else:
                optimizer.step()

        def never_clears(loss, optimizer):
            loss.backward()
            optimizer.step()

        def loop(batches, model, optimizer):
            for batch in batches:
                both_clear(model(batch), optimizer, False)
        """
    )
    uncleared = lambda name: [effect.site.code for effect in found[name].effects if effect.action == Effect.STEP_UNCLEARED]
    assert uncleared("mixed") == ["optimizer.step()"]
    site = next(effect.site for effect in found["mixed"].effects if effect.action == Effect.STEP_UNCLEARED)
    assert site.node is not None and site.node is not next(e.site for e in found["mixed"].effects if e.action == Effect.STEP).node  # the else branch's step
    assert uncleared("both_clear") == [] and uncleared("loop") == []
    assert uncleared("never_clears") == []  # its effects alone tell that it never clears


def test_a_call_passing_literals_for_tested_parameters_gets_the_summary_of_the_branches_it_takes() -> None:
    context, module = walked(
        """
        def run_epoch(model, loader, optimizer=None, mode="train"):
            for x, y in loader:
                loss = model(x, y)
                if mode == "train":
                    loss.backward()
                    optimizer.step()
                if not mode == "train":
                    model.eval()

        def evaluate(model, loader):
            run_epoch(model, loader, mode="test")

        def fit(model, loader, optimizer):
            run_epoch(model, loader, optimizer, "train")

        def either(model, loader, optimizer, mode):
            run_epoch(model, loader, optimizer, mode)
        """
    )
    calls = {}

    class _Calls(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            self.function = node.name.value

        def visit_Call(self, node: cst.Call) -> None:
            if isinstance(node.func, cst.Name) and node.func.value == "run_epoch":
                calls[self.function] = context.call_summary(node)

    module.visit(_Calls())
    assert not calls["evaluate"].does(Effect.BACKWARD) and calls["evaluate"].does(Effect.EVAL)
    assert calls["fit"].does(Effect.BACKWARD) and not calls["fit"].does(Effect.EVAL)
    assert calls["either"].does(Effect.BACKWARD) and calls["either"].does(Effect.EVAL)  # a name decides nothing
