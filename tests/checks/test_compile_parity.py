"""assert_compile_parity and assert_compiles_cleanly on real torch.compile runs.

Every test compiles for real, with the ``eager`` or ``aot_eager`` backend (no C++ compiler,
about a second each on CPU); Inductor is only reached where the check must refuse to run.
"""

from __future__ import annotations

import inspect
import logging
import os
import unittest
from typing import Any

import pytest
import torch
import torch._dynamo
import torch.nn.functional as F
from torch import nn
from torch._dynamo.backends.common import aot_autograd
from torch._functorch.aot_autograd import make_boxed_func

from torchcheck import CheckFailed, NotApplicable, assert_compile_parity, assert_compiles_cleanly

from ._helpers import process_state_unchanged

Batch = tuple[torch.Tensor, torch.Tensor]
HERE = os.path.relpath(__file__)  # how the check names this file


class TinyNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.encoder = nn.Linear(8, 16)
        self.norm = nn.LayerNorm(16)
        self.dropout = nn.Dropout(0.2)
        self.head = nn.Linear(16, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.dropout(F.gelu(self.norm(self.encoder(x)))))


class PlainNet(nn.Module):
    """No dropout: a backend that draws random numbers its own way cannot blur a test."""

    def __init__(self) -> None:
        super().__init__()
        self.encoder = nn.Linear(8, 16)
        self.norm = nn.LayerNorm(16)
        self.head = nn.Linear(16, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(F.gelu(self.norm(self.encoder(x))))


class BranchyNet(TinyNet):
    """Breaks the graph twice: a Python branch on a tensor's value, and a print."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.encoder(x)
        if h.sum().item() > 0:  # BREAK-ITEM
            h = h * 2
        print("activations", end="")  # BREAK-PRINT
        return self.head(h)


class CountingNet(TinyNet):
    """Scales by a Python counter it bumps every call: Dynamo specialises on the number."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.calls += 1
        return self.head(self.encoder(x)) * (1.0 + 0.01 * self.calls)


def adamw(model: nn.Module) -> torch.optim.Optimizer:
    return torch.optim.AdamW(model.parameters(), lr=1e-2)


def train_step(model: nn.Module, optimizer: torch.optim.Optimizer, batch: Batch) -> torch.Tensor:
    inputs, targets = batch
    optimizer.zero_grad()
    loss = F.mse_loss(model(inputs), targets)
    loss.backward()
    optimizer.step()
    return loss


def make_batches(steps: int = 3) -> list[Batch]:
    generator = torch.Generator().manual_seed(0)
    return [(torch.randn(4, 8, generator=generator), torch.randn(4, 1, generator=generator)) for _ in range(steps)]


def line_of(marker: str, obj: Any) -> int:
    lines, first = inspect.getsourcelines(obj)
    return first + next(index for index, line in enumerate(lines) if marker in line)


def failure(**kwargs: Any) -> str:
    arguments = {"make_model": TinyNet, "make_optimizer": adamw, "step_fn": train_step, "batches": make_batches()}
    arguments.update(kwargs)
    with pytest.raises(CheckFailed) as caught:
        assert_compile_parity(**arguments)
    return str(caught.value)


# ----------------------------------------------------------------- parity


def test_correct_model_with_dropout_trains_identically_under_aot_eager() -> None:
    with process_state_unchanged():
        assert_compile_parity(TinyNet, adamw, train_step, make_batches())


class DropPathNet(nn.Module):
    """Randomness spelled without nn.Dropout: functional dropout, attention dropout_p and a
    drop-path mask from bernoulli_."""

    def __init__(self) -> None:
        super().__init__()
        self.encoder = nn.Linear(8, 16)
        self.head = nn.Linear(16, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = F.dropout(F.gelu(self.encoder(x)), p=0.3, training=self.training)
        q = h.view(1, 1, *h.shape)
        h = h + F.scaled_dot_product_attention(q, q, q, dropout_p=0.2).view(h.shape)
        keep = h.new_empty(h.shape[0], 1).bernoulli_(0.8)
        return self.head(h * keep / 0.8)


def test_randomness_in_any_spelling_is_switched_off_in_both_runs_for_a_decomposing_backend() -> None:
    assert_compile_parity(DropPathNet, adamw, train_step, make_batches(2), backend="aot_eager_decomp_partition")


def test_a_failure_under_a_decomposing_backend_names_the_random_calls_it_switched_off() -> None:
    def step_adding_a_hook(model: nn.Module, optimizer: torch.optim.Optimizer, batch: Batch) -> torch.Tensor:
        inner = getattr(model, "_orig_mod", model)
        if not hasattr(inner, "hooked") and optimizer.state:  # from step 2 on
            inner.hooked = True
            inner.head.register_forward_hook(lambda module, args, output: output * 0.5)
        return train_step(model, optimizer, batch)

    message = failure(
        make_model=DropPathNet, step_fn=step_adding_a_hook, batches=make_batches(2), backend="aot_eager_decomp_partition"
    )
    assert (
        'Note: randomness was switched off in both runs, since "aot_eager_decomp_partition" decomposes dropout and '
        "draws other random numbers than eager: 2 × F.dropout, 2 × F.scaled_dot_product_attention, "
        "2 × Tensor.bernoulli_ ran at their expected value (dropout as the identity)." in message
    )


def test_float64_precision_and_the_eager_backend_pass_too() -> None:
    assert_compile_parity(TinyNet, adamw, train_step, make_batches(2), backend=["eager", "aot_eager"], precision="float64")


def test_hook_added_after_compiling_diverges_at_the_step_it_was_added() -> None:
    def step_adding_a_hook(model: nn.Module, optimizer: torch.optim.Optimizer, batch: Batch) -> torch.Tensor:
        inner = getattr(model, "_orig_mod", model)
        if not hasattr(inner, "hooked") and optimizer.state:  # from step 2 on
            inner.hooked = True
            inner.norm.register_forward_hook(lambda module, args, output: output * 0.5)
        return train_step(model, optimizer, batch)

    message = failure(step_fn=step_adding_a_hook, backend="eager")
    assert "diverges from eager at step 2 of 3 (float32), loss:" in message
    assert "although every step up to 1 agreed, so the compiled forward differs" in message
    assert "Cause: hooks changed after the model was first compiled (forward hooks of 'norm': 1 added)" in message


def scaled_backward_backend(gm: torch.fx.GraphModule, example_inputs: list[torch.Tensor]) -> Any:
    """A backend bug: the compiled backward returns every gradient 5% too large."""

    def wrong_backward(backward_graph: torch.fx.GraphModule, _inputs: Any) -> Any:
        def run(*args: Any) -> list[Any]:
            return [o * 1.05 if isinstance(o, torch.Tensor) else o for o in backward_graph(*args)]

        return make_boxed_func(run)

    return aot_autograd(fw_compiler=lambda graph, _inputs: graph, bw_compiler=wrong_backward)(gm, example_inputs)


def layer_norm_bug_backend(gm: torch.fx.GraphModule, example_inputs: list[torch.Tensor]) -> Any:
    """A backend bug that only graphs with a layer norm hit."""
    if any("layer_norm" in str(node.target) for node in gm.graph.nodes):
        return scaled_backward_backend(gm, example_inputs)
    return gm.forward


def test_backend_with_a_wrong_backward_is_named_by_the_ladder_and_localised() -> None:
    message = failure(make_model=PlainNet, backend=layer_norm_bug_backend)
    assert "diverges from eager at step 1 of 3 (float32), gradient 'encoder.weight':" in message
    assert "Relative difference |g - g_eager| / |g_eager|: 0.05 (up to 0.0141 allowed)" in message
    assert "Phase: the loss of step 1 agrees (diff 0); the gradients differ, so the compiled backward differs." in message
    assert (
        "the backend ladder on step 1 gives eager: agrees, aot_eager: agrees, aot_eager_decomp_partition: agrees, "
        "layer_norm_bug_backend: differs -> the backend layer_norm_bug_backend, not the model." in message
    )
    assert "Compiling only 'norm' (LayerNorm) reproduces it; compiling any other module alone does not." in message
    assert "TORCHDYNAMO_REPRO_AFTER=aot TORCHDYNAMO_REPRO_LEVEL=4 pytest 'tests/checks/test_compile_parity.py::test_backend_with" in message


class SelfAttentionNet(nn.Module):
    """The key bias of an attention layer has a true gradient of zero (a constant added
    to every score of a query cancels in the softmax): float32 leaves noise of ~1e-9."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Linear(8, 16)
        self.attention = nn.MultiheadAttention(16, 2, batch_first=True)
        self.head = nn.Linear(16, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.embed(x)
        return self.head(self.attention(h, h, h, need_weights=False)[0].mean(dim=1))


def float64_rounding_backend(gm: torch.fx.GraphModule, example_inputs: list[torch.Tensor]) -> Any:
    """Computes the graph in float64 and rounds to float32: correct, but rounded otherwise
    than eager, as Inductor's fused kernels are on a GPU."""

    def run(*args: Any) -> Any:
        outputs = gm(*[a.double() if isinstance(a, torch.Tensor) and a.is_floating_point() else a for a in args])
        return type(outputs)(o.float() if isinstance(o, torch.Tensor) and o.dtype == torch.float64 else o for o in outputs)

    return run


def attention_batches() -> list[Batch]:
    generator = torch.Generator().manual_seed(0)
    return [(torch.randn(4, 5, 8, generator=generator), torch.randn(4, 1, generator=generator)) for _ in range(3)]


def test_adam_steps_on_gradients_that_are_rounding_noise_are_left_out_of_the_comparison() -> None:
    """Found on the first GPU run (Inductor, H200): AdamW turns the key bias's noise into
    steps of lr that differ between the runs; the loss and gradients agreed."""
    assert_compile_parity(SelfAttentionNet, adamw, train_step, attention_batches(), backend=float64_rounding_backend)


def test_a_real_difference_is_still_caught_next_to_noise_level_gradients() -> None:
    message = failure(make_model=SelfAttentionNet, batches=attention_batches(), backend=scaled_backward_backend)
    assert "diverges from eager at step 1 of 3 (float32), gradient" in message


def test_explicit_tolerance_accepts_a_small_difference() -> None:
    assert_compile_parity(PlainNet, adamw, train_step, make_batches(2), backend=scaled_backward_backend, rtol=0.1, atol=1e-3)


# ------------------------------------------------------------ compile health


def test_graph_breaks_are_listed_with_their_source_lines() -> None:
    message = failure(make_model=BranchyNet, batches=make_batches(2))
    assert '2 graph breaks under torch.compile(backend="aot_eager") (allowed: 0):' in message
    item_line, print_line = line_of("BREAK-ITEM", BranchyNet), line_of("BREAK-PRINT", BranchyNet)
    assert f"1. Tensor.item() in BranchyNet.forward at {HERE}:{item_line}" in message
    assert "if h.sum().item() > 0:  # BREAK-ITEM" in message
    assert "Dynamo: Unsupported Tensor.item() call with capture_scalar_outputs=False (gb0124)" in message
    assert f"2. print() in BranchyNet.forward at {HERE}:{print_line}" in message
    assert "max_graph_breaks=2" in message


def test_graph_breaks_within_the_budget_pass() -> None:
    assert_compile_parity(BranchyNet, adamw, train_step, make_batches(2), max_graph_breaks=2, max_recompiles=None)


def test_a_branch_on_an_item_value_recompiles_the_code_after_the_break() -> None:
    message = failure(make_model=BranchyNet, batches=make_batches(2), max_graph_breaks=None)
    item_line = line_of("BREAK-ITEM", BranchyNet)
    assert f"step 2 of 2 recompiles the rest of 'forward' after its graph break at line {item_line}" in message
    assert "the Python number the break hands over (a .item() or float() result)" in message


def test_a_python_number_that_changes_every_step_recompiles_after_warmup() -> None:
    message = failure(make_model=CountingNet)
    assert f"step 2 of 3 recompiles 'forward' ({HERE}:" in message
    assert "allowed after the warm-up step: 0. Guard failure: 0/0: self.calls == 0" in message
    assert f"(from `self.calls += 1` at {HERE}:" in message
    assert "specialised on a Python number that changes every step (self.calls)" in message


def test_recompiles_within_the_budget_are_counted_not_refused() -> None:
    message = failure(make_model=CountingNet, batches=make_batches(4), max_recompiles=1)
    assert "3 recompiles after the warm-up step (allowed: 1):" in message
    assert "step 2: 'forward'" in message and "step 3: 'forward'" in message


def test_hitting_the_recompile_limit_is_a_failure_not_a_silent_eager_fallback() -> None:
    with torch._dynamo.config.patch(recompile_limit=2):
        message = failure(make_model=CountingNet, batches=make_batches(4), max_recompiles=None)
        assert torch._dynamo.config.recompile_limit == 2
    assert f"'forward' ({HERE}:" in message
    assert "hit torch._dynamo's recompile_limit (2) at step 3 (max_recompiles=None)" in message
    assert "Last guard failure: 0/1: self.calls == 1" in message
    assert torch._dynamo.config.fail_on_recompile_limit_hit is False


def test_step_fn_that_ignores_the_model_it_is_given_compiles_nothing() -> None:
    other = TinyNet()

    def step_on_another_model(model: nn.Module, optimizer: torch.optim.Optimizer, batch: Batch) -> torch.Tensor:
        return train_step(other, optimizer, batch)

    message = failure(step_fn=step_on_another_model)
    assert "nothing was compiled in 3 steps (Dynamo captured no graph): step_fn does not call the model" in message


def failing_backend(gm: torch.fx.GraphModule, example_inputs: list[torch.Tensor]) -> Any:
    raise RuntimeError("this backend cannot compile anything")


def test_a_backend_error_is_raised_not_swallowed() -> None:
    with torch._dynamo.config.patch(suppress_errors=True):
        message = failure(backend=failing_backend)
        assert torch._dynamo.config.suppress_errors is True
    assert "the compiled run raised at step 1 of 3 under torch.compile(backend=failing_backend)" in message
    assert "this backend cannot compile anything" in message


def test_compiled_optimizer_step_passes_within_update_tolerance() -> None:
    assert_compile_parity(TinyNet, adamw, train_step, make_batches(3), compile="step", max_graph_breaks=None)


def test_python_lr_changed_by_a_scheduler_recompiles_the_compiled_step() -> None:
    def adamw_with_decay(model: nn.Module) -> tuple[torch.optim.Optimizer, Any]:
        optimizer = adamw(model)
        return optimizer, torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)

    message = failure(
        make_optimizer=adamw_with_decay, compile="step", warmup_steps=1, max_graph_breaks=None, batches=make_batches(2)
    )
    assert "step 2 of 2 recompiles 'step' (torch/optim/adam.py:" in message
    assert "Guard failure: 4/0: self.param_groups[0]['lr'] == 0.01" in message
    assert "give the optimizer a tensor lr" in message


def test_inductor_without_a_cpp_compiler_is_not_applicable() -> None:
    import torch._inductor.config as inductor_config

    with inductor_config.patch({"cpp.cxx": ("no-such-compiler-torchcheck",)}):
        with pytest.raises(NotApplicable, match=r'backend="inductor"\) on CPU compiles C\+\+ and no C\+\+ compiler'):
            assert_compile_parity(TinyNet, adamw, train_step, make_batches(1), backend="inductor")
    assert issubclass(NotApplicable, unittest.SkipTest)


def test_dynamo_settings_and_logging_are_restored_after_a_failure() -> None:
    graph_break_log = logging.getLogger("torch._dynamo.symbolic_convert.__graph_breaks")
    before = (graph_break_log.level, graph_break_log.propagate, list(graph_break_log.handlers))
    config_before = torch._dynamo.config.get_config_copy()
    with process_state_unchanged():
        failure(make_model=BranchyNet, batches=make_batches(1))
    assert (graph_break_log.level, graph_break_log.propagate, list(graph_break_log.handlers)) == before
    assert torch._dynamo.config.get_config_copy() == config_before


def test_an_error_of_the_eager_step_is_raised_as_it_is_and_settings_are_restored() -> None:
    def step_with_a_bug(model: nn.Module, optimizer: torch.optim.Optimizer, batch: Batch) -> torch.Tensor:
        torch.set_default_dtype(torch.float64)
        raise KeyError("targets")

    with process_state_unchanged(), pytest.raises(KeyError, match="targets"):
        assert_compile_parity(TinyNet, adamw, step_with_a_bug, make_batches(1))


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"batches": []}, "batches must be a non-empty list"),
        ({"compile": "everything"}, 'compile must be "model", "step" or a function'),
        ({"precision": "bfloat16"}, 'precision must be "float64" or "native"'),
        ({"max_graph_breaks": -1}, "max_graph_breaks must be a non-negative integer or None"),
        ({"backend": []}, "backend is an empty list"),
    ],
)
def test_arguments_are_checked(kwargs: dict[str, Any], match: str) -> None:
    arguments = {"make_model": TinyNet, "make_optimizer": adamw, "step_fn": train_step, "batches": make_batches(1)}
    with pytest.raises(ValueError, match=match):
        assert_compile_parity(**{**arguments, **kwargs})


# --------------------------------------------------------- compiles cleanly


def attention_scores(queries: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
    return torch.softmax(queries @ keys.transpose(-1, -2) / queries.shape[-1] ** 0.5, dim=-1)


def sequence_sweep() -> list[tuple[torch.Tensor, torch.Tensor]]:
    generator = torch.Generator().manual_seed(0)
    return [(torch.randn(2, length, 4, generator=generator), torch.randn(2, length, 4, generator=generator)) for length in (8, 16, 32)]


def test_compiles_cleanly_passes_for_a_sweep_compiled_with_dynamic_shapes() -> None:
    sweep = sequence_sweep()
    with process_state_unchanged():
        assert_compiles_cleanly(attention_scores, sweep, dynamic=True)


def test_compiles_cleanly_names_the_recompile_of_a_new_sequence_length() -> None:
    with pytest.raises(CheckFailed) as caught:
        assert_compiles_cleanly(attention_scores, sequence_sweep())
    message = str(caught.value)
    assert f"assert_compiles_cleanly: call 2 of 3 recompiles 'attention_scores' ({HERE}:" in message
    assert "allowed after the first call: 0" in message
    assert "size mismatch at index 1. expected 8, actual 16" in message
    assert "compile with dynamic=True" in message


def test_compiles_cleanly_lists_a_graph_break_of_a_module() -> None:
    with pytest.raises(CheckFailed) as caught:
        assert_compiles_cleanly(BranchyNet(), [(torch.randn(2, 8),)], max_recompiles=None)
    message = str(caught.value)
    assert "2 graph breaks under torch.compile(BranchyNet, backend=\"eager\") (allowed: 0):" in message
    assert "Tensor.item() in BranchyNet.forward" in message
