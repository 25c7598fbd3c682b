"""The binder answers after the walk: parents, enclosing statements and loops, scopes by
Python's rules, the bindings that may reach a use, and every reference to a binding."""

from __future__ import annotations

import textwrap

import libcst as cst

from torchcheck.lint.binder import Binder

CODE = '''
import torch
from torch import nn

scale = 2

class Net(nn.Module):
    scale = 3

    def forward(self, x):
        return x * scale

def train(model, loader, epochs):
    loss = None
    for epoch in range(epochs):
        for x in loader:
            if loss is not None:
                print(loss)
            loss = model(x).sum()
    squares = [x * x for x in range(3)]
    return loss, squares
'''


def _names(module: cst.Module, value: str) -> list[cst.Name]:
    found: list[cst.Name] = []

    class Collect(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            if node.value == value:
                found.append(node)

    module.visit(Collect())
    return found


def _setup() -> tuple[cst.Module, Binder]:
    module = cst.parse_module(textwrap.dedent(CODE))
    return module, Binder(module)


def test_a_method_reads_the_module_level_name_not_the_class_attribute() -> None:
    module, binder = _setup()
    scale_in_forward = _names(module, "scale")[-1]
    (binding,) = binder.bindings_of("scale", binder.scope_of(scale_in_forward))
    assert binding.scope is binder.module_scope
    assert scale_in_forward in binding.references


def test_a_use_in_a_loop_is_reached_by_a_binding_later_in_the_loop() -> None:
    module, binder = _setup()
    printed = next(name for name in _names(module, "loss") if isinstance(binder.parent(name), cst.Arg))
    reaching = binder.bindings_before(printed)
    assert [binder.statement_of(b.node).value.__class__.__name__ for b in reaching] == ["Name", "Call"]


def test_enclosing_questions() -> None:
    module, binder = _setup()
    printed = next(name for name in _names(module, "loss") if isinstance(binder.parent(name), cst.Arg))
    assert isinstance(binder.statement_of(printed), cst.Expr)
    loops = binder.loops_around(printed)
    assert [type(loop).__name__ for loop in loops] == ["For", "For"]
    assert binder.enclosing(printed, cst.FunctionDef).name.value == "train"


def test_a_comprehension_variable_lives_in_its_own_scope() -> None:
    module, binder = _setup()
    loop_x = _names(module, "x")[2]  # `for x in loader`
    comprehension_x = _names(module, "x")[-1]  # `for x in range(3)`
    loop_binding = binder.binding_made_by(loop_x)
    assert loop_binding is not None and comprehension_x not in loop_binding.references
    assert binder.scope_of(comprehension_x) is not loop_binding.scope


def test_imports_are_bindings_and_attribute_names_are_no_references() -> None:
    module, binder = _setup()
    (nn_binding,) = binder.bindings_of("nn", binder.module_scope)
    assert len(nn_binding.references) == 1  # `nn.Module`; `Module` is an attribute name
    (torch_binding,) = binder.bindings_of("torch", binder.module_scope)
    assert torch_binding.references == []


def test_the_binder_leaves_no_reference_cycle_behind() -> None:
    """Reference counting alone frees a binder and its scopes: nothing waits for the collector."""
    import gc
    import weakref

    module = cst.parse_module(textwrap.dedent(CODE))
    gc.disable()
    try:
        binder = Binder(module)
        binder_ref, scope_ref = weakref.ref(binder), weakref.ref(binder.module_scope)
        del binder
        assert binder_ref() is None and scope_ref() is None
    finally:
        gc.enable()


def test_a_comprehension_element_is_reached_by_the_comprehensions_own_target() -> None:
    module, binder = _setup()
    element_x = _names(module, "x")[-3]  # the first `x` of `x * x`, written before `for x`
    (binding,) = binder.bindings_before(element_x)
    assert isinstance(binding.node, cst.CompFor)


def test_an_attribute_name_has_no_reaching_bindings() -> None:
    module, binder = _setup()
    attribute_name = next(node for node in _names(module, "Module"))  # `nn.Module`'s `Module`
    assert binder.bindings_before(attribute_name) == []
    assert not binder.precedes(attribute_name, module)


REBOUND = '''
def step(model, x, flag):
    out = model(x)
    out = out.softmax(-1)
    if flag:
        out = out.log()
    return out
'''


def test_a_later_binding_on_every_path_replaces_an_earlier_one() -> None:
    module = cst.parse_module(textwrap.dedent(REBOUND))
    binder = Binder(module)
    returned = _names(module, "out")[-1]
    values = [cst.Module([]).code_for_node(binding.node.value) for binding in binder.reaching(returned)]
    assert values == ["out.softmax(-1)", "out.log()"]  # `out = model(x)` is replaced on every path
    assert len(binder.bindings_before(returned)) == 3


BRANCHES = '''
for batch in loader:
    if index is None:
        scores, ids = logits.topk(k)
    else:
        scores, ids = index.search(batch, k)
        scores = torch.tensor(scores)
        if skip:
            continue
        ids = torch.tensor(ids)
    use(scores, ids)
'''


def test_a_binding_replaced_later_in_its_own_block_reaches_only_the_uses_before_the_replacement() -> None:
    module = cst.parse_module(textwrap.dedent(BRANCHES))
    binder = Binder(module)
    code = cst.Module([]).code_for_node
    scores_in_tensor = next(name for name in _names(module, "scores") if isinstance(binder.parent(name), cst.Arg) and name is not _names(module, "scores")[-1])
    assert [code(binding.node.value) for binding in binder.reaching(scores_in_tensor)] == ["index.search(batch, k)"]
    scores_used, ids_used = _names(module, "scores")[-1], _names(module, "ids")[-1]
    assert [code(binding.node.value) for binding in binder.reaching(scores_used)] == ["logits.topk(k)", "torch.tensor(scores)"]
    # a `continue` between the two bindings leaves the block: the first may still reach the loop's next pass
    assert [code(binding.node.value) for binding in binder.reaching(ids_used)] == ["logits.topk(k)", "index.search(batch, k)", "torch.tensor(ids)"]


CARRIED = '''
for epoch in range(epochs):
    for batch in loader:
        out = model(batch)
        loss = criterion(out)
    out = evaluate(model)
'''


def test_a_binding_later_in_a_loop_does_not_reach_past_one_made_before_the_use_in_the_same_loop() -> None:
    module = cst.parse_module(textwrap.dedent(CARRIED))
    binder = Binder(module)
    read = next(name for name in _names(module, "out") if isinstance(binder.parent(name), cst.Arg))
    assert [cst.Module([]).code_for_node(binding.node.value) for binding in binder.reaching(read)] == ["model(batch)"]


SELF_REFERENCING = '''
states = norm_states(module)
states = all_reduce(states)
states += offsets
'''


def test_an_assignment_binds_after_its_value_and_an_augmented_one_reads_the_binding_before() -> None:
    module = cst.parse_module(textwrap.dedent(SELF_REFERENCING))
    binder = Binder(module)
    first_target, second_target, argument, augmented = _names(module, "states")
    code = cst.Module([]).code_for_node
    assert [code(binding.node.value) for binding in binder.reaching(argument)] == ["norm_states(module)"]
    assert [code(binding.node.value) for binding in binder.reaching(augmented)] == ["all_reduce(states)"]
    assert [code(binding.node.value) for binding in binder.reaching(second_target)] == ["all_reduce(states)"]
