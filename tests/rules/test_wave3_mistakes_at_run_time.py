"""TCK308, TCK310, TCK610, TCK611 and TCK804 against PyTorch itself: the code each rule reports
fails (or silently misbehaves) when run, and the correction it asks for lints clean and works.

Every snippet runs on the CPU (``GradScaler("cpu")``) and is linted exactly as it is run.
"""

from __future__ import annotations

import multiprocessing
import textwrap

import pytest

from tests.rules.examples import codes_reported, run_snippet
from torchcheck.lint.engine import fix_source, lint_source
from torchcheck.lint.registry import rules_by_code

# A GradScaler loop over four micro-batches; `{body}` is the part each test varies.
_SCALER_LOOP = """
import torch

model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu")
accumulation_steps = 2
batches = [torch.randn(8, 4) for _ in range(4)]
for i, x in enumerate(batches):
    loss = model(x).pow(2).mean() / accumulation_steps
    scaler.scale(loss).backward()
{body}
"""


def _scaler_loop(body: str) -> str:
    return _SCALER_LOOP.format(body=textwrap.indent(textwrap.dedent(body).strip("\n"), "    "))


# ---------------------------------------------------------------- TCK308 unscale-every-micro-step
UNSCALE_EVERY_MICRO_BATCH = _scaler_loop(
    """
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    if (i + 1) % accumulation_steps == 0:
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()
    """
)
UNSCALE_WHEN_STEPPING = _scaler_loop(
    """
    if (i + 1) % accumulation_steps == 0:
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()
    """
)


def test_unscaling_every_micro_batch_is_reported_and_raises_on_the_second_one() -> None:
    assert codes_reported(UNSCALE_EVERY_MICRO_BATCH, "TCK308") == ["TCK308"]
    with pytest.raises(RuntimeError, match=r"unscale_\(\) has already been called"):
        run_snippet(UNSCALE_EVERY_MICRO_BATCH)


def test_unscaling_under_the_accumulation_condition_is_silent_and_runs() -> None:
    assert codes_reported(UNSCALE_WHEN_STEPPING, "TCK308") == []
    run_snippet(UNSCALE_WHEN_STEPPING)


# ---------------------------------------------------------------- TCK310 scaler-update-skipped
SKIP_WITHOUT_UPDATE = _scaler_loop(
    """
    scaler.unscale_(optimizer)
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    if i == 0 or not torch.isfinite(norm):
        optimizer.zero_grad()
        continue
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad()
    """
)
SKIP_WITH_UPDATE = SKIP_WITHOUT_UPDATE.replace("optimizer.zero_grad()\n        continue", "optimizer.zero_grad()\n        scaler.update()\n        continue")


def test_continue_between_unscale_and_update_is_reported_and_the_next_unscale_raises() -> None:
    assert codes_reported(SKIP_WITHOUT_UPDATE, "TCK310") == ["TCK310"]
    with pytest.raises(RuntimeError, match=r"unscale_\(\) has already been called"):
        run_snippet(SKIP_WITHOUT_UPDATE)


def test_updating_before_the_continue_is_silent_and_runs() -> None:
    assert "scaler.update()\n        continue" in SKIP_WITH_UPDATE
    assert codes_reported(SKIP_WITH_UPDATE, "TCK310") == []
    run_snippet(SKIP_WITH_UPDATE)


# ---------------------------------------------------------------- TCK610 train-override-signature
TRAIN_WITHOUT_MODE = """
import torch.nn as nn

class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.BatchNorm1d(4)

    def train(self):
        super().train()
        self.stem.eval()
        return self
"""
TRAIN_WITH_MODE = TRAIN_WITHOUT_MODE.replace("def train(self):", "def train(self, mode: bool = True):").replace(
    "super().train()", "super().train(mode)"
)


def test_train_override_without_mode_is_reported_and_eval_raises() -> None:
    assert codes_reported(TRAIN_WITHOUT_MODE, "TCK610") == ["TCK610"]
    backbone = run_snippet(TRAIN_WITHOUT_MODE)["Backbone"]()  # type: ignore[operator]
    with pytest.raises(TypeError, match="positional argument"):
        backbone.eval()


def test_train_override_with_mode_is_silent_and_eval_works() -> None:
    assert codes_reported(TRAIN_WITH_MODE, "TCK610") == []
    backbone = run_snippet(TRAIN_WITH_MODE)["Backbone"]()  # type: ignore[operator]
    assert backbone.eval().training is False


# ---------------------------------------------------------------- TCK611 module-requires-grad-attribute
FREEZE_BY_ATTRIBUTE = """
import torch.nn as nn

encoder = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 2))
encoder.requires_grad = False
"""
FREEZE_BY_ATTRIBUTE_ON_A_PARAMETER = """
def freeze(model):
    model.requires_grad = False
"""


def test_requires_grad_attribute_on_a_module_freezes_nothing_and_the_fix_freezes_it() -> None:
    assert all(p.requires_grad for p in run_snippet(FREEZE_BY_ATTRIBUTE)["encoder"].parameters())  # type: ignore[attr-defined]
    fixed = fix_source(FREEZE_BY_ATTRIBUTE.encode(), "example.py", rules_by_code(["TCK611"]))
    assert fixed.fixed_source is not None, "a module built in the code is fixed by --fix"
    source = fixed.fixed_source.decode()
    assert "encoder.requires_grad_(False)" in source
    assert not any(p.requires_grad for p in run_snippet(source)["encoder"].parameters())  # type: ignore[attr-defined]


def test_requires_grad_attribute_on_a_module_known_only_by_name_offers_only_an_unsafe_fix() -> None:
    result = lint_source(FREEZE_BY_ATTRIBUTE_ON_A_PARAMETER.encode(), "example.py", rules_by_code(["TCK611"]))
    assert [d.fix.applicability if d.fix else "none" for d in result.diagnostics] == ["unsafe"]
    safe_only = fix_source(FREEZE_BY_ATTRIBUTE_ON_A_PARAMETER.encode(), "example.py", rules_by_code(["TCK611"]))
    assert safe_only.fixed_source is None


# ---------------------------------------------------------------- TCK804 dataset-rng-shared-across-workers
DATASET_WITH_ITS_OWN_RNG = """
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, get_worker_info

class Draws(Dataset):
    def __init__(self):
        self.rng = np.random.default_rng()

    def __len__(self):
        return 4

    def __getitem__(self, index):
        return float(self.rng.random())

loader = DataLoader(Draws(), batch_size=2, num_workers=2, multiprocessing_context="fork")
"""
SEEDED_PER_WORKER = DATASET_WITH_ITS_OWN_RNG.replace(
    'loader = DataLoader(Draws(), batch_size=2, num_workers=2, multiprocessing_context="fork")',
    "def seed_worker(worker_id):\n"
    "    info = get_worker_info()\n"
    "    info.dataset.rng = np.random.default_rng(info.seed)\n\n"
    'loader = DataLoader(Draws(), batch_size=2, num_workers=2, multiprocessing_context="fork", worker_init_fn=seed_worker)',
)


# The snippets' dataset class lives in an exec namespace, which only forked workers inherit.
_NEEDS_FORK = pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="needs fork")


def _batches(source: str) -> list[list[float]]:
    loader = run_snippet(source)["loader"]
    return [batch.tolist() for batch in loader]  # type: ignore[attr-defined]


@_NEEDS_FORK
def test_dataset_rng_without_worker_init_fn_is_reported_and_both_workers_draw_the_same_numbers() -> None:
    assert codes_reported(DATASET_WITH_ITS_OWN_RNG, "TCK804") == ["TCK804"]
    first_worker, second_worker = _batches(DATASET_WITH_ITS_OWN_RNG)
    assert first_worker == second_worker


@_NEEDS_FORK
def test_dataset_rng_reseeded_per_worker_is_silent_and_the_workers_differ() -> None:
    assert codes_reported(SEEDED_PER_WORKER, "TCK804") == []
    first_worker, second_worker = _batches(SEEDED_PER_WORKER)
    assert first_worker != second_worker
