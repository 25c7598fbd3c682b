"""Golden training curves: a tiny real model is recorded, then planted bugs must be caught
with their cause named and the first divergent step reported."""

from __future__ import annotations

import dataclasses
import json
import math
import subprocess
import unittest
from pathlib import Path
from typing import Any

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import torchcheck as tc
from torchcheck import cli
from torchcheck.checks._golden_compare import compare_records, resolve_tolerances
from torchcheck.checks._golden_format import GoldenFileError, GoldenRecord, parse_golden, read_golden, render_golden, write_golden
from torchcheck.checks.golden import GoldenMissing, check_golden_curve
from torchcheck.checks.state import capture_global_state

STEPS = 5


class TinyNet(nn.Module):
    def __init__(self, activation: type[nn.Module] = nn.Tanh) -> None:
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.act = activation()
        self.fc2 = nn.Linear(16, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(self.act(self.fc1(x)))


def make_batches(seed: int = 0, steps: int = STEPS) -> list[tuple[torch.Tensor, torch.Tensor]]:
    generator = torch.Generator().manual_seed(seed)
    return [(torch.randn(4, 8, generator=generator), torch.randn(4, 1, generator=generator)) for _ in range(steps)]


def sgd(lr: float = 0.1, momentum: float = 0.0) -> Any:
    return lambda model: torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)


def train_step(model: nn.Module, optimizer: torch.optim.Optimizer, batch: Any) -> torch.Tensor:
    x, y = batch
    optimizer.zero_grad()
    loss = F.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
    return loss


def step_without_zero_grad(model: nn.Module, optimizer: torch.optim.Optimizer, batch: Any) -> torch.Tensor:
    x, y = batch
    loss = F.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
    return loss


def curve(**overrides: Any) -> tc.TrainingCurve:
    arguments: dict[str, Any] = {"make_model": TinyNet, "make_optimizer": sgd(), "step_fn": train_step, "batches": make_batches()}
    arguments.update(overrides)
    return tc.run_training(
        arguments.pop("make_model"), arguments.pop("make_optimizer"), arguments.pop("step_fn"), arguments.pop("batches"), **arguments
    )


@pytest.fixture
def golden_dir(tmp_path: Path) -> Path:
    """A directory holding the golden of the correct model."""
    tc.assert_golden_curve(curve(), tmp_path, update=True)
    return tmp_path


def failure(directory: Path, trained: tc.TrainingCurve, **options: Any) -> str:
    with pytest.raises(tc.CheckFailed) as caught:
        check_golden_curve(trained, directory, **options)
    return str(caught.value)


# ----------------------------------------------------------------- record, match


def test_a_recorded_curve_matches_the_next_run(golden_dir: Path) -> None:
    (path,) = golden_dir.glob("*.json")
    assert path.name == f"{tc.golden_key(dtype=torch.float32).stem}.json"
    tc.assert_golden_curve(curve(), golden_dir)


def test_the_golden_file_is_json_with_one_line_per_step(golden_dir: Path) -> None:
    (path,) = golden_dir.glob("*.json")
    text = path.read_text()
    data = json.loads(text)
    assert data["columns"] == ["step", "loss", "grad_norm", "lr"]
    step_lines = [line for line in text.splitlines() if line.startswith("    [")]
    assert [json.loads(line.rstrip(","))[0] for line in step_lines] == list(range(1, STEPS + 1))
    assert data["rows"][0][1] == curve().losses[0]  # shortest repr round-trips exactly


def test_run_training_puts_global_state_back() -> None:
    threads = torch.get_num_threads()
    torch.set_num_threads(2)
    before, rng = capture_global_state(), torch.get_rng_state()
    try:
        trained = curve(tf32=True)
        assert capture_global_state() == before
        assert torch.equal(torch.get_rng_state(), rng)
        assert trained.recorded["threads"] == 1 and trained.key.precision == "tf32"
    finally:
        torch.set_num_threads(threads)


# ------------------------------------------------------------------ planted bugs


def test_a_changed_learning_rate_is_named_as_the_scheduler(golden_dir: Path) -> None:
    message = failure(golden_dir, curve(make_optimizer=sgd(lr=0.2)))
    assert "lr:        first outside at step 1 of 5: 0.2 vs golden 0.1" in message
    assert "The learning rate differs from step 1 on (0.2 vs golden 0.1)" in message


def test_a_missing_zero_grad_is_caught_at_step_2_in_backward(golden_dir: Path) -> None:
    message = failure(golden_dir, curve(step_fn=step_without_zero_grad))
    assert "grad_norm: first outside at step 2 of 5" in message
    assert "<- first outside (grad_norm)" in message
    assert "Step 1 agrees and step 2's gradient does not while its loss agrees exactly" in message
    assert "missing optimizer.zero_grad()" in message


def test_a_changed_init_seed_is_named_as_the_initialisation(golden_dir: Path) -> None:
    message = failure(golden_dir, curve(seed=1))
    assert "the model's initialisation changed" in message
    assert "under seed 1" in message and "seed 0" in message


def test_without_the_init_check_other_weights_show_in_step_1s_loss(golden_dir: Path) -> None:
    message = failure(golden_dir, curve(seed=1), compare_init=False)
    assert "loss:" in message and "first outside at step 1 of 5" in message
    assert "Step 1's loss differs, and it is computed before any update" in message


def test_other_batches_are_named_before_any_number(golden_dir: Path) -> None:
    message = failure(golden_dir, curve(batches=make_batches(seed=1)))
    assert "the batches differ from the golden's" in message
    assert "first outside" not in message


def test_a_changed_optimizer_setting_is_named_as_the_update(golden_dir: Path) -> None:
    # SGD momentum changes nothing in step 1's update, only from step 2's on.
    message = failure(golden_dir, curve(make_optimizer=sgd(momentum=0.5)))
    assert "first outside at step 3 of 5" in message
    assert "Steps 1-2 agree, gradients and learning rate included, and step 3's loss does not" in message
    assert "the optimizer update of step 2 changed" in message


def test_a_forward_change_names_the_first_module_whose_output_moved(tmp_path: Path) -> None:
    tc.assert_golden_curve(curve(record_modules=True), tmp_path, update=True)
    changed = curve(make_model=lambda: TinyNet(nn.ReLU), record_modules=True)
    message = failure(tmp_path, changed)
    assert "The first module whose output moved at step 1: 'act'" in message


def test_the_failure_of_a_pytest_curve_gives_the_command_that_records_it(golden_dir: Path) -> None:
    trained = dataclasses.replace(curve(make_optimizer=sgd(lr=0.2)), name="tests/test_x.py::test_trains[cpu]")
    message = failure(golden_dir, trained)
    assert message.startswith("assert_golden_curve: tests/test_x.py::test_trains[cpu] leaves its golden envelope")
    assert "pytest 'tests/test_x.py::test_trains[cpu]' --torchcheck-update-golden" in message


def test_a_step_outside_the_budget_fails_and_one_inside_passes() -> None:
    key = tc.golden_key()
    golden = GoldenRecord("c", key, ("step", "loss"), ((1, 1.0), (2, 1.0), (3, 1.0)))
    moved = dataclasses.replace(golden, rows=((1, 1.0), (2, 1.05), (3, 1.001)))
    within_budget = compare_records(moved, golden, {"loss": tc.Approx(rtol=0.01, budget=1)})
    assert [(c.outside, c.fails) for c in within_budget] == [((2,), False)]
    absolute = compare_records(moved, golden, {"loss": tc.Approx(atol=0.06)})
    assert absolute[0].outside == ()
    assert compare_records(moved, golden, {"loss": tc.Approx(rtol=0.01)})[0].fails


def test_non_finite_values_and_skipped_steps_must_match_in_kind() -> None:
    key = tc.golden_key()
    golden = GoldenRecord("c", key, ("step", "loss"), ((1, math.nan), (2, math.inf), (3, None)))
    same = compare_records(golden, golden, {"loss": tc.Approx(rtol=1.0)})
    assert same[0].outside == ()
    other = dataclasses.replace(golden, rows=((1, math.inf), (2, math.nan), (3, 1.0)))
    assert compare_records(other, golden, {"loss": tc.Approx(rtol=1.0)})[0].outside == (1, 2, 3)


# ------------------------------------------------------------------------ keying


def test_another_dtype_gets_its_own_golden_instead_of_a_failure(golden_dir: Path) -> None:
    with pytest.raises(GoldenMissing) as skipped:
        tc.assert_golden_curve(curve(dtype=torch.float64), golden_dir)
    assert isinstance(skipped.value, unittest.SkipTest)
    reason = str(skipped.value)
    assert "cpu-" in reason and "-float64-ws1-" in reason and "keys recorded there: cpu-" in reason
    tc.assert_golden_curve(curve(dtype=torch.float64), golden_dir, update="missing")
    assert sorted(p.name.split("-")[2] for p in golden_dir.glob("*.json")) == ["float32", "float64"]
    tc.assert_golden_curve(curve(), golden_dir)  # the float32 golden is untouched


def test_another_world_size_is_never_compared_with_this_one(golden_dir: Path) -> None:
    trained = curve(make_optimizer=sgd(lr=0.2))
    two_ranks = dataclasses.replace(trained, key=dataclasses.replace(trained.key, world_size=2))
    with pytest.raises(GoldenMissing, match="-ws2-"):
        tc.assert_golden_curve(two_ranks, golden_dir, missing="nearest")


def test_the_key_names_device_hardware_precision_world_size_and_torch_minor() -> None:
    key = tc.golden_key("cpu", dtype=torch.bfloat16, world_size=8)
    capability = torch.backends.cpu.get_cpu_capability().lower()
    minor = ".".join(torch.__version__.split(".")[:2])
    assert key.stem == f"cpu-{capability}-bfloat16-ws8-torch{minor}"
    assert tc.golden_key("cpu", tf32=True).precision == "tf32"
    named = tc.golden_key("cpu", detail="name")
    assert named.name and named.stem.startswith(f"cpu-{capability}-{named.name}-float32")
    with pytest.raises(ValueError, match="floating dtype"):
        tc.golden_key("cpu", dtype=torch.int64)


def test_nearest_compares_with_another_hardware_key_approximately(tmp_path: Path) -> None:
    trained = curve()
    other_key = dataclasses.replace(trained.key, hardware="avx2" if trained.key.hardware != "avx2" else "default")
    write_golden(tmp_path / other_key.file_name, dataclasses.replace(trained.as_record("c"), key=other_key))
    outcome = check_golden_curve(trained, tmp_path, missing="nearest")
    assert (outcome.status, outcome.compared_with) == ("compared", other_key.stem)
    assert not (tmp_path / trained.key.file_name).exists()
    moved = dataclasses.replace(trained, rows=tuple((r[0], r[1] * 1.001, *r[2:]) for r in trained.rows))
    message = failure(tmp_path, moved, missing="nearest")
    assert f"no golden for this machine's key {trained.key.stem}; compared with the nearest, {other_key.file_name}" in message
    assert "allowed 0.001%" in message


def test_missing_fail_is_a_check_failure(tmp_path: Path) -> None:
    with pytest.raises(tc.CheckFailed, match="none recorded there yet"):
        tc.assert_golden_curve(curve(), tmp_path, missing="fail")


# ------------------------------------------------------------------------ update


def test_comparing_never_writes(tmp_path: Path, golden_dir: Path) -> None:
    empty = tmp_path / "empty"
    with pytest.raises(GoldenMissing):
        tc.assert_golden_curve(curve(), empty)
    assert not empty.exists()
    (path,) = golden_dir.glob("*.json")
    before = path.read_bytes()
    failure(golden_dir, curve(make_optimizer=sgd(lr=0.2)))
    assert path.read_bytes() == before


def test_update_missing_compares_where_a_golden_exists(golden_dir: Path) -> None:
    message = failure(golden_dir, curve(make_optimizer=sgd(lr=0.2)), update="missing")
    assert "learning rate differs" in message


def test_update_rewrites_and_says_what_moved(golden_dir: Path) -> None:
    outcome = check_golden_curve(curve(make_optimizer=sgd(lr=0.2)), golden_dir, update=True)
    assert outcome.status == "written"
    assert "lr: max 100% over 5 steps, first change at step 1" in outcome.changes
    assert "loss: max" in outcome.changes and "first change at step 2" in outcome.changes
    tc.assert_golden_curve(curve(make_optimizer=sgd(lr=0.2)), golden_dir)


def test_update_with_the_same_numbers_leaves_the_file_alone(golden_dir: Path) -> None:
    (path,) = golden_dir.glob("*.json")
    path.write_text(path.read_text().replace('"date": "', '"date": "1999-'))
    before = path.read_bytes()
    assert check_golden_curve(curve(), golden_dir, update=True).status == "unchanged"
    assert path.read_bytes() == before


def test_rewriting_from_other_initial_weights_lists_the_other_keys_as_stale(golden_dir: Path) -> None:
    tc.assert_golden_curve(curve(dtype=torch.float64), golden_dir, update=True)
    outcome = check_golden_curve(curve(seed=1), golden_dir, update=True)
    assert len(outcome.stale) == 1 and "-float64-" in outcome.stale[0]


@pytest.mark.parametrize(
    "text",
    [
        "<<<<<<< HEAD\n{}\n=======\n{}\n>>>>>>> branch\n",
        '{"torchcheck_golden": 1, "columns": ["step", "loss"], "rows": [[1, "fast"]]}',
        "not json",
    ],
    ids=["conflict", "bad-value", "not-json"],
)
def test_a_corrupt_golden_is_never_overwritten(tmp_path: Path, text: str) -> None:
    trained = curve()
    path = tmp_path / trained.key.file_name
    path.write_text(text)
    for update in (False, True, "missing"):
        with pytest.raises(GoldenFileError, match="is not a valid golden file.*Fix or delete it"):
            tc.assert_golden_curve(trained, tmp_path, update=update)
    assert path.read_text() == text


def test_a_golden_renamed_to_another_key_is_refused(golden_dir: Path) -> None:
    (path,) = golden_dir.glob("*.json")
    trained = curve(dtype=torch.float64)
    path.rename(golden_dir / trained.key.file_name)
    with pytest.raises(GoldenFileError, match="renamed or copied"):
        tc.assert_golden_curve(trained, golden_dir)


def test_an_exact_golden_the_machine_cannot_reproduce_is_refused(tmp_path: Path) -> None:
    calls = {"count": 0}

    def drifting_step(model: nn.Module, optimizer: torch.optim.Optimizer, batch: Any) -> torch.Tensor:
        calls["count"] += 1  # state that outlives a run
        return train_step(model, optimizer, batch) * (1 + calls["count"] * 1e-3)

    with pytest.raises(tc.CheckFailed, match="refusing to record an exact golden.*step 1 \\(loss"):
        tc.assert_golden_curve(curve(step_fn=drifting_step), tmp_path, update=True)
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------------------ columns


def test_user_metrics_need_a_tolerance_and_become_columns(tmp_path: Path) -> None:
    def step_with_accuracy(model: nn.Module, optimizer: torch.optim.Optimizer, batch: Any) -> dict[str, Any]:
        loss = train_step(model, optimizer, batch)
        return {"loss": loss, "accuracy": float(loss.detach() < 1.0)}

    trained = curve(step_fn=step_with_accuracy, metrics=["param_norm", "update_norm"])
    assert trained.columns == ("step", "loss", "grad_norm", "lr", "param_norm", "update_norm", "accuracy")
    with pytest.raises(ValueError, match="'accuracy'"):
        tc.assert_golden_curve(trained, tmp_path, update=True)
    tc.assert_golden_curve(trained, tmp_path, tolerance={"accuracy": tc.Approx(atol=0.5)}, update=True)
    tc.assert_golden_curve(trained, tmp_path, tolerance={"accuracy": tc.Approx(atol=0.5)})


def test_a_step_skipped_by_grad_scaler_has_no_gradient_norm(tmp_path: Path) -> None:
    def amp_step(model: nn.Module, optimizer: torch.optim.Optimizer, scaler: Any, batch: Any) -> torch.Tensor:
        x, y = batch
        optimizer.zero_grad()
        loss = F.mse_loss(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        return loss

    batches = make_batches()
    batches[0] = (torch.full((4, 8), math.inf), batches[0][1])  # a NaN loss: GradScaler skips step 1
    trained = curve(step_fn=amp_step, batches=batches, scaler=lambda: torch.amp.GradScaler("cpu", init_scale=2.0**16))
    assert trained.column("grad_norm")[0] is None and trained.column("grad_norm")[1] is not None
    assert trained.column("loss_scale")[:2] == [2.0**15, 2.0**15]
    tc.assert_golden_curve(trained, tmp_path, update=True)
    (path,) = tmp_path.glob("*.json")
    assert json.loads(path.read_text())["rows"][0][1:3] == ["nan", None]
    tc.assert_golden_curve(trained, tmp_path)


def test_bad_input_gets_a_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown metric"):
        curve(metrics=["accuracy"])
    with pytest.raises(ValueError, match="at least one batch"):
        curve(batches=[])
    with pytest.raises(TypeError, match="step_fn must return the loss.*step 1 returned"):
        curve(step_fn=lambda model, optimizer, batch: None)
    with pytest.raises(ValueError, match="missing must be one of"):
        tc.assert_golden_curve(curve(), ".", missing="ignore")
    with pytest.raises(ValueError, match="budget"):
        tc.Approx(rtol=0.1, budget=-1)
    with pytest.raises(TypeError):
        tc.Approx(0.1, 0.0, 2)  # budget is keyword-only: a step count is never a tolerance


def test_a_seed_checkpoint_that_no_longer_loads_says_the_model_changed(tmp_path: Path) -> None:
    state = {"fc1.weight": torch.zeros(16, 8)}
    with pytest.raises(tc.CheckFailed, match="seed checkpoint no longer loads.*missing keys"):
        curve(initial_state=state)
    checkpoint = tmp_path / "seed.pt"
    torch.save(TinyNet().state_dict(), checkpoint)
    assert curve(initial_state=checkpoint).init_sha256 == curve(initial_state=checkpoint, seed=5).init_sha256


def test_non_finite_values_round_trip_through_the_file(tmp_path: Path) -> None:
    record = GoldenRecord("c", tc.golden_key(), ("step", "loss"), ((1, math.nan), (2, -math.inf), (3, 0.1 + 0.2)))
    text = render_golden(record)
    assert '[1, "nan"]' in text and '[2, "-inf"]' in text
    assert json.loads(text)["rows"][2][1] == 0.1 + 0.2
    assert parse_golden(text, "x").same_numbers(record)


def test_default_tolerances_follow_the_precision() -> None:
    columns = ("step", "loss", "grad_norm", "lr")
    assert resolve_tolerances(columns, tc.golden_key("cpu"))["loss"] == tc.Exact()
    bf16 = resolve_tolerances(columns, tc.golden_key("cpu", dtype=torch.bfloat16))
    assert (bf16["loss"], bf16["grad_norm"], bf16["lr"]) == (tc.Approx(rtol=1e-2), tc.Approx(rtol=5e-2), tc.Exact())


# ------------------------------------------------------------------------ review


def _git(cwd: Path, *arguments: str) -> None:
    subprocess.run(["git", "-c", "user.email=t@t", "-c", "user.name=t", *arguments], cwd=cwd, check=True, capture_output=True)


def test_review_says_what_moved_and_whether_it_is_noise(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    directory = tmp_path / "golden" / "curve"
    tc.assert_golden_curve(curve(), directory, update=True)
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-qm", "golden")
    (path,) = directory.glob("*.json")
    record = read_golden(path)
    nudged = tuple((r[0], r[1], r[2] * (1 + 1e-7), r[3]) for r in record.rows)
    write_golden(path, dataclasses.replace(record, rows=nudged))
    monkeypatch.chdir(tmp_path)
    assert cli.main(["golden", "review"]) == 0
    output = capsys.readouterr().out
    assert f"golden/curve/{path.name} (modified)" in output
    assert "loss: unchanged" in output
    assert "grad_norm: max 1e-05% over 5 steps, first change at step 1 -> behaviour change (default tolerance exact)" in output
    assert cli.main(["golden", "list"]) == 0
    assert f"{path.stem}" in capsys.readouterr().out
    assert cli.main(["golden", "review", "--against", "no-such-rev"]) == 2
    assert "'no-such-rev' is not a revision" in capsys.readouterr().err


# ------------------------------------------------------------------ distributed


def data_parallel_tiny_net() -> nn.Module:
    return nn.parallel.DistributedDataParallel(TinyNet())


def shards(rank: int, world_size: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """Each rank's half of every global batch, as a DistributedSampler would give it."""
    return [(x[rank::world_size], y[rank::world_size]) for x, y in make_batches()]


@pytest.mark.distributed(world_size=2)
def test_a_distributed_curve_is_kept_by_rank_0_and_every_rank_gets_its_verdict(rank: int, tmp_path: Path) -> None:
    def trained(**overrides: Any) -> tc.TrainingCurve:
        return curve(make_model=data_parallel_tiny_net, batches=shards, **overrides)

    written = check_golden_curve(trained(), tmp_path, update=True)  # exact: both ranks train it twice
    assert written.status == "written" and written.path.name.endswith("-ws2-torch" + ".".join(torch.__version__.split(".")[:2]) + ".json")
    assert list(tmp_path.glob("*.json")) == ([written.path] if rank == 0 else [])  # only rank 0 writes
    directory = written.path.parent  # rank 0's: every outcome comes from rank 0
    assert check_golden_curve(trained(), directory).status == "compared"
    message = failure(directory, trained(make_optimizer=sgd(lr=0.2)))  # the same failure on every rank
    assert "lr:        first outside at step 1 of 5: 0.2 vs golden 0.1" in message
