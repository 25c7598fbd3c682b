"""How one reference is used, asked of the binder after the walk (lint/references.py)."""

from __future__ import annotations

import textwrap

import libcst as cst

from torchcheck.lint import references
from torchcheck.lint.binder import Binder
from torchcheck.lint.nodes import subtree


def _parse(code: str) -> tuple[cst.Module, Binder]:
    module = cst.parse_module(textwrap.dedent(code))
    return module, Binder(module)


def _names(module: cst.Module, value: str) -> list[cst.Name]:
    """Every variable ``value`` in source order (attribute names left out)."""
    return [node for node in subtree(module, attribute_names=False) if isinstance(node, cst.Name) and node.value == value]


def test_a_name_only_compared_or_negated_is_tested_and_a_passed_one_is_not() -> None:
    module, binder = _parse("""
        if loader is None or not loader:
            pass
        x = a if loader else b
        run(loader)
    """)
    assert [references.is_tested(binder, name) for name in _names(module, "loader")] == [True, True, True, False]


def test_targets_parameters_and_global_declarations_are_bound_reads_are_not() -> None:
    module, binder = _parse("""
        loader = make()
        a, loader = pair
        def f(x=loader):
            global loader
        for loader in loaders:
            print(loader)
    """)
    assert [references.is_bound(binder, name) for name in _names(module, "loader")] == [True, True, True, True, True, False]


def test_the_loop_iterating_a_loader_is_found_through_wrappers_but_not_through_keywords() -> None:
    module, binder = _parse("""
        for i, batch in enumerate(tqdm(loader)):
            pass
        for batch in tqdm(iterable=loader):
            pass
        for pair in zip(other, loader):
            pass
        for x in sorted(loader):
            pass
    """)
    loops = [references.iterating_loop(binder, name) for name in _names(module, "loader")]
    assert [loop is not None for loop in loops] == [True, False, True, False]
    assert loops[0] is module.body[0]


def test_the_loops_running_a_node_count_bodies_and_while_tests_but_not_iterables_or_else() -> None:
    module, binder = _parse("""
        while step(loader):
            for epoch in range(3):
                for x in loader:
                    pass
            else:
                use(loader)
    """)
    outer = module.body[0]
    epoch_loop = outer.body.body[0]
    test, iterated, in_else = _names(module, "loader")
    assert references.loops_running(binder, test) == (outer,)
    assert references.loops_running(binder, iterated) == (outer, epoch_loop)
    assert references.loops_running(binder, in_else) == (outer,)


def test_what_a_loop_draws_from_looks_through_a_name_bound_once_and_through_wrappers() -> None:
    module, binder = _parse("""
        epochs = trange(10)
        for _ in epochs:
            pass
        for i, _ in enumerate(range(3)):
            pass
    """)
    first, second = (statement for statement in module.body if isinstance(statement, cst.For))
    assert isinstance(references.iterated_value(binder, first), cst.Call)
    assert references.iterated_value(binder, first).func.value == "trange"
    assert references.iterated_value(binder, second).func.value == "range"


def test_a_read_before_the_rebinding_runs_before_it_unless_a_loop_holds_both() -> None:
    module, binder = _parse("""
        size = len(loader.dataset)
        loader = DataLoader(ds)
        for _ in range(3):
            print(loader)
            loader = DataLoader(ds)
    """)
    first_read, first_bind, loop_read, loop_bind = _names(module, "loader")
    assignment = binder.parent(binder.parent(first_bind))
    in_loop = binder.parent(binder.parent(loop_bind))
    assert references.runs_before(binder, first_read, {assignment})
    assert not references.runs_before(binder, loop_read, {in_loop})


def test_the_assignment_of_a_value_also_as_a_branch_of_a_conditional_expression() -> None:
    module, binder = _parse("""
        sampler = DistributedSampler(ds) if distributed else None
        loader = DataLoader(ds)
        a = b = DataLoader(ds)
    """)
    sampler_call, first_loader, second_loader = (node for node in subtree(module) if isinstance(node, cst.Call))
    assert references.assignment_of(binder, sampler_call) is None
    assert references.assignment_of(binder, sampler_call, as_branch=True) is module.body[0].body[0]
    assert references.assignment_of(binder, first_loader) is module.body[1].body[0]
    assert references.assignment_of(binder, second_loader) is None


def test_the_call_a_value_is_passed_to_as_a_whole_argument() -> None:
    module, binder = _parse("""
        train(model, loader)
        train(loader=loader)
        train(loader.dataset)
    """)
    found = [references.argument_of(binder, name) for name in _names(module, "loader")]
    assert found[0] is module.body[0].body[0].value
    assert found[1] is module.body[1].body[0].value
    assert found[2] is None


def test_self_attribute_references_cover_every_method_and_stop_where_self_escapes() -> None:
    code = """
        class Trainer(Base):
            def __init__(self, ds):
                super(Trainer, self).__init__()
                self.loader = DataLoader(ds)

            def fit(self):
                for batch in self.loader:
                    pass

            class Inner:
                def f(self):
                    return self.loader
        """
    module, binder = _parse(code)
    found = references.self_attribute_references(binder, module.body[0], "loader")
    assert found is not None and len(found) == 2
    module, binder = _parse(code.replace("pass", "hooks.register(self)"))
    assert references.self_attribute_references(binder, module.body[0], "loader") is None


def _calls(module: cst.Module, method: str) -> list[cst.Call]:
    return [node for node in subtree(module) if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == method]


def test_a_method_called_only_before_a_rebinding_runs_before_it_and_one_called_after_or_from_outside_does_not() -> None:
    module, binder = _parse("""
        class Trainer:
            def __init__(self, model):
                self.model = model
                self.early()
                self.model = wrap(self.model)
                self.late()

            def early(self):
                self.model.load()

            def late(self):
                self.model.load_late()

            def outside(self):
                self.model.load_outside()
    """)
    owner = next(node for node in subtree(module) if isinstance(node, cst.ClassDef))
    rebinding = [node for node in subtree(module) if isinstance(node, cst.Assign) and isinstance(node.value, cst.Call)]
    asked = {name: references.runs_before_through_methods(binder, _calls(module, name)[0], rebinding, owner) for name in ("load", "load_late", "load_outside")}
    assert asked == {"load": True, "load_late": False, "load_outside": False}


def test_a_binding_on_another_branch_of_the_same_if_does_not_replace_the_value() -> None:
    module, binder = _parse("""
        loader = fallback()
        if distributed:
            loader = sharded()
        elif single:
            loader = single_device()
        else:
            loader = plain()
        if late:
            loader = other()
        for batch in loader:
            pass
    """)
    targets = _names(module, "loader")[:5]
    sharded = binder.parent(binder.parent(targets[1]))  # the Assign
    assert references.on_other_branch(binder, targets[1], targets[2]) and references.on_other_branch(binder, targets[2], targets[3])
    assert not references.on_other_branch(binder, targets[1], targets[4])
    others = [targets[0], *targets[2:]]
    assert [references.may_replace(binder, target, {sharded}) for target in others] == [False, False, False, True]


def test_a_class_reaches_the_classes_of_its_file_it_derives_from_nearest_first() -> None:
    module, binder = _parse("""
        from torch import nn
        class Base(nn.Module):
            def __init__(self, objective):
                super().__init__()
                self.criterion = nn.BCEWithLogitsLoss() if objective else nn.MSELoss()
        class Middle(Base):
            pass
        class Ranker(Middle, nn.Module):
            def loss(self, x, y):
                return self.criterion(x, y)
        class Loop(Loop):
            pass
    """)
    classes = {node.name.value: node for node in module.body if isinstance(node, cst.ClassDef)}
    assert [cls.name.value for cls in references.class_and_file_bases(binder, classes["Ranker"])] == ["Ranker", "Middle", "Base"]
    read = next(node for node in subtree(module) if isinstance(node, cst.Attribute) and node.attr.value == "criterion" and node not in [t.target for t in subtree(module) if isinstance(t, cst.AssignTarget)])
    assigned = references.inherited_assignments(binder, read, "criterion")
    assert len(assigned) == 1 and isinstance(assigned[0][0], cst.Assign)
    assert references.class_and_file_bases(binder, classes["Loop"]) == [classes["Loop"]]
