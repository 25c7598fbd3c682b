"""TCK118, TCK612 and TCK918 against PyTorch itself: the code each rule reports misbehaves
when run, and the correction lints clean and behaves.

Every snippet runs on the CPU and is linted exactly as it is run.
"""

from __future__ import annotations

import torch

from tests.rules.examples import codes_reported, run_snippet

# ---------------------------------------------------------------- TCK118 accumulation-averages-token-means
# Two micro-batches of one accumulation window: six target tokens, then one (the rest is -100).
_TOKEN_LOOP = """
import torch
import torch.nn.functional as F

torch.manual_seed(0)
model = torch.nn.Linear(4, 5)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
accumulation_steps = 2
inputs = torch.randn(2, 6, 4)
labels = torch.randint(0, 5, (2, 6))
labels[1, 1:] = -100
window_tokens = (labels != -100).sum()
grads = []
for step in range(accumulation_steps):
    logits = model(inputs[step])
{loss}
    if (step + 1) % accumulation_steps == 0:
        grads.append(model.weight.grad.clone())
        optimizer.step()
        optimizer.zero_grad()
"""
MEAN_PER_MICRO_BATCH = _TOKEN_LOOP.format(
    loss="""    loss = F.cross_entropy(logits, labels[step], ignore_index=-100)
    (loss / accumulation_steps).backward()"""
)
SUM_OVER_WINDOW = _TOKEN_LOOP.format(
    loss="""    loss = F.cross_entropy(logits, labels[step], ignore_index=-100, reduction="sum")
    (loss / window_tokens).backward()"""
)


def _full_window_gradient(namespace: dict[str, object]) -> torch.Tensor:
    """The gradient of the mean over every target token of the window, in one batch."""
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 5)
    inputs, labels = namespace["inputs"], namespace["labels"]
    torch.nn.functional.cross_entropy(model(inputs.flatten(0, 1)), labels.flatten(), ignore_index=-100).backward()
    return model.weight.grad


def test_token_means_divided_by_the_micro_batch_count_are_reported_and_differ_from_the_window_mean() -> None:
    assert codes_reported(MEAN_PER_MICRO_BATCH, "TCK118") == ["TCK118"]
    namespace = run_snippet(MEAN_PER_MICRO_BATCH)
    accumulated = namespace["grads"][0]
    assert not torch.allclose(accumulated, _full_window_gradient(namespace), atol=1e-3)


def test_token_sums_divided_by_the_window_token_count_are_silent_and_match_the_window_mean() -> None:
    assert codes_reported(SUM_OVER_WINDOW, "TCK118") == []
    namespace = run_snippet(SUM_OVER_WINDOW)
    torch.testing.assert_close(namespace["grads"][0], _full_window_gradient(namespace))


# ---------------------------------------------------------------- TCK612 buffer-uninitialized-after-to-empty
_ROPE_MODEL = """
import torch
import torch.nn as nn


class RotaryEmbedding(nn.Module):
    def __init__(self, dim, base=10000.0):
        super().__init__()
        self.dim, self.base = dim, base
        self.register_buffer("inv_freq", self._inv_freq(), persistent=False)

    def _inv_freq(self):
        return 1.0 / self.base ** (torch.arange(0, self.dim, 2).float() / self.dim)

    def reset_parameters(self):
        self.inv_freq.copy_(self._inv_freq())


class Model(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.rope = RotaryEmbedding(dim)
        self.proj = nn.Linear(dim, dim)

    def init_weights(self):
        self.rope.reset_parameters()
        self.proj.reset_parameters()


reference = Model(8)
state = reference.state_dict()
with torch.device("meta"):
    model = Model(8)
model.to_empty(device="cpu")
{init}model.load_state_dict(state)
"""
LOADED_AFTER_TO_EMPTY = _ROPE_MODEL.format(init="")
INITIALISED_AFTER_TO_EMPTY = _ROPE_MODEL.format(init="model.init_weights()\n")


def _run_filling_uninitialised_memory(source: str) -> dict[str, object]:
    """Run with torch's deterministic mode, which fills uninitialised memory with NaN, so
    what `to_empty` leaves does not depend on what the allocator last held."""
    previous = torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(True)
    try:
        return run_snippet(source)
    finally:
        torch.use_deterministic_algorithms(previous)


def test_to_empty_then_a_state_dict_load_is_reported_and_leaves_the_rotary_frequencies_uninitialised() -> None:
    assert codes_reported(LOADED_AFTER_TO_EMPTY, "TCK612") == ["TCK612"]
    namespace = _run_filling_uninitialised_memory(LOADED_AFTER_TO_EMPTY)
    assert "inv_freq" not in namespace["state"]  # no checkpoint holds a non-persistent buffer
    assert torch.isnan(namespace["model"].rope.inv_freq).all()
    torch.testing.assert_close(namespace["model"].proj.weight, namespace["reference"].proj.weight)


def test_to_empty_then_init_weights_is_silent_and_recomputes_the_rotary_frequencies() -> None:
    assert codes_reported(INITIALISED_AFTER_TO_EMPTY, "TCK612") == []
    namespace = _run_filling_uninitialised_memory(INITIALISED_AFTER_TO_EMPTY)
    torch.testing.assert_close(namespace["model"].rope.inv_freq, namespace["reference"].rope.inv_freq)


# ---------------------------------------------------------------- TCK918 flex-attention-not-compiled
_FLEX_ATTENTION = """
import torch
from torch.nn.attention.flex_attention import flex_attention
{compile}

def attend(q, k, v):
    return {callee}(q, k, v)


q = torch.randn(1, 2, 128, 16)
out = attend(q, q, q)
"""
EAGER_FLEX_ATTENTION = _FLEX_ATTENTION.format(compile="", callee="flex_attention")
COMPILED_FLEX_ATTENTION = _FLEX_ATTENTION.format(
    compile='compiled_flex_attention = torch.compile(flex_attention, backend="eager")', callee="compiled_flex_attention"
)


def _flex_attention_warnings(source: str, monkeypatch) -> list[str]:
    """The warnings torch gives while the snippet runs; torch warns once per process, so the
    record of warnings shown starts empty."""
    import warnings

    import torch.nn.attention.flex_attention as flex_module

    monkeypatch.setattr(flex_module, "_WARNINGS_SHOWN", set())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            run_snippet(source)
        finally:
            torch._dynamo.reset()
    return [str(warning.message) for warning in caught]


def test_eager_flex_attention_is_reported_and_torch_warns_it_materialises_the_full_score_matrix(monkeypatch) -> None:
    assert codes_reported(EAGER_FLEX_ATTENTION, "TCK918") == ["TCK918"]
    messages = _flex_attention_warnings(EAGER_FLEX_ATTENTION, monkeypatch)
    assert any("materializes the full scores matrix" in message for message in messages)


def test_compiled_flex_attention_is_silent_and_runs_without_the_eager_warning(monkeypatch) -> None:
    assert codes_reported(COMPILED_FLEX_ATTENTION, "TCK918") == []
    messages = _flex_attention_warnings(COMPILED_FLEX_ATTENTION, monkeypatch)
    assert not any("materializes the full scores matrix" in message for message in messages)
