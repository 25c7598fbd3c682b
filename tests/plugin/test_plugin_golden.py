"""The golden_curve fixture and its options, in a project that turned the plugin on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import torchcheck.checks.golden  # noqa: F401  (imported once, outside the inner runs)

TEST_MODULE = """
import torch
import torch.nn.functional as F
from torch import nn

LR = {lr}


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.fc2 = nn.Linear(16, 1)

    def forward(self, x):
        return self.fc2(torch.tanh(self.fc1(x)))


def make_optimizer(model):
    return torch.optim.SGD(model.parameters(), lr=LR)


def train_step(model, optimizer, batch):
    x, y = batch
    optimizer.zero_grad()
    loss = F.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
    return loss


def batches():
    generator = torch.Generator().manual_seed(0)
    return [(torch.randn(4, 8, generator=generator), torch.randn(4, 1, generator=generator)) for _ in range(4)]


def test_trains(golden_curve, torch_device):
    curve = golden_curve(Net, make_optimizer, train_step, batches())
    assert curve.steps == 4


def test_plain():
    pass
"""


@pytest.fixture(autouse=True)
def _no_golden_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("TORCHCHECK_UPDATE_GOLDEN", "TORCHCHECK_GOLDEN_MISSING", "GITHUB_STEP_SUMMARY"):
        monkeypatch.delenv(name, raising=False)


def write_test(pytester: pytest.Pytester, lr: float = 0.1) -> Path:
    return pytester.makepyfile(test_training=TEST_MODULE.format(lr=lr))


def goldens(pytester: pytest.Pytester) -> list[Path]:
    return sorted(Path(pytester.path).rglob("*.json"))


def test_the_fixture_skips_records_compares_and_catches_a_change(pytester: pytest.Pytester) -> None:
    write_test(pytester)
    first = pytester.runpytest("-rs")
    first.assert_outcomes(passed=1, skipped=1)
    first.stdout.fnmatch_lines(["*no golden for test_training.py::test_trains[[]cpu[]]*", "*--torchcheck-update-golden=missing*"])
    assert goldens(pytester) == []

    recorded = pytester.runpytest("--torchcheck-update-golden")
    recorded.assert_outcomes(passed=2)
    (path,) = goldens(pytester)
    assert path.parent == Path(pytester.path) / "golden" / "test_training" / "test_trains"
    assert json.loads(path.read_text())["curve"] == "test_training.py::test_trains[cpu]"
    recorded.stdout.fnmatch_lines(["*0 compared, 1 written*", f"*written golden/test_training/test_trains/{path.name}: new golden, 4 steps"])

    pytester.runpytest().stdout.fnmatch_lines(["*1 compared, 0 written*", "*2 passed*"])

    write_test(pytester, lr=0.2)
    changed = pytester.runpytest()
    changed.assert_outcomes(passed=1, failed=1)
    changed.stdout.fnmatch_lines(
        [
            "*The learning rate differs from step 1 on (0.2 vs golden 0.1)*",
            "*pytest 'test_training.py::test_trains[[]cpu[]]' --torchcheck-update-golden",
        ]
    )
    assert {row[3] for row in json.loads(path.read_text())["rows"]} == {0.1}  # compared, never rewritten


def test_tests_using_the_fixture_carry_the_golden_marker(pytester: pytest.Pytester) -> None:
    write_test(pytester)
    result = pytester.runpytest("-m", "golden", "--collect-only", "-q")
    result.stdout.fnmatch_lines(["test_training.py::test_trains[[]cpu[]]", "*1/2 tests collected (1 deselected)*"])


def test_a_path_after_the_update_flag_stays_a_path(pytester: pytest.Pytester) -> None:
    write_test(pytester)
    result = pytester.runpytest("--torchcheck-update-golden", "test_training.py", "-k", "trains")
    result.assert_outcomes(passed=1)
    assert len(goldens(pytester)) == 1


def test_update_missing_records_only_what_is_missing(pytester: pytest.Pytester) -> None:
    write_test(pytester)
    pytester.runpytest("--torchcheck-update-golden=missing").assert_outcomes(passed=2)
    write_test(pytester, lr=0.2)
    pytester.runpytest("--torchcheck-update-golden=missing").assert_outcomes(passed=1, failed=1)


def test_the_environment_can_ask_for_an_update(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    write_test(pytester)
    monkeypatch.setenv("TORCHCHECK_UPDATE_GOLDEN", "missing")
    pytester.runpytest().assert_outcomes(passed=2)
    assert len(goldens(pytester)) == 1


def test_missing_fail_fails_and_a_bad_policy_is_a_usage_error(pytester: pytest.Pytester) -> None:
    write_test(pytester)
    result = pytester.runpytest("--torchcheck-golden-missing=fail")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*no golden for test_training.py::test_trains*none recorded there yet*"])
    bad = pytester.runpytest("--torchcheck-golden-missing=ignore")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines(["*--torchcheck-golden-missing: expected one of skip, fail, nearest, got 'ignore'*"])


def test_an_explicitly_requested_device_fails_instead_of_skipping(pytester: pytest.Pytester) -> None:
    write_test(pytester)
    pytester.runpytest("--torchcheck-device=cpu").assert_outcomes(passed=1, failed=1)


def test_required_keys_fail_when_missing_and_the_directory_can_move(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\ntorchcheck = true\ntorchcheck_golden_required =\n    cpu-*\ntorchcheck_golden_dir = tests/golden\n")
    write_test(pytester)
    pytester.runpytest().assert_outcomes(passed=1, failed=1)
    pytester.runpytest("--torchcheck-update-golden").assert_outcomes(passed=2)
    (path,) = goldens(pytester)
    assert path.parent == Path(pytester.path) / "tests" / "golden" / "test_training" / "test_trains"


def test_pyproject_sets_tolerances_per_key(pytester: pytest.Pytester) -> None:
    write_test(pytester)
    pytester.runpytest("--torchcheck-update-golden").assert_outcomes(passed=2)
    write_test(pytester, lr=0.1000001)
    pytester.runpytest().assert_outcomes(passed=1, failed=1)
    pytester.makepyprojecttoml(
        '[tool.torchcheck.golden]\ntolerance = { "cpu-*" = { loss = { rtol = 1e-3 }, grad_norm = { rtol = 1e-3 }, '
        "lr = { rtol = 1e-3 } } }\n"
    )
    pytester.runpytest().assert_outcomes(passed=2)


def test_the_github_step_summary_lists_what_was_written(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    write_test(pytester)
    pytester.runpytest("--torchcheck-update-golden").assert_outcomes(passed=2)
    text = summary.read_text()
    assert "0 compared, 1 written" in text
    assert "| `golden/test_training/test_trains/" in text and "new golden, 4 steps |" in text


DISTRIBUTED_TEST_MODULE = TEST_MODULE.replace(
    "def test_trains(golden_curve, torch_device):\n    curve = golden_curve(Net, make_optimizer, train_step, batches())",
    "@pytest.mark.distributed(world_size=2)\n"
    "def test_trains(golden_curve, rank):\n"
    "    shards = lambda rank, world_size: [(x[rank::world_size], y[rank::world_size]) for x, y in batches()]\n"
    "    curve = golden_curve(lambda: nn.parallel.DistributedDataParallel(Net()), make_optimizer, train_step, shards)",
).replace("import torch\n", "import pytest\nimport torch\n", 1)


def test_the_fixture_in_a_distributed_test_keeps_one_golden_of_the_world_size(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_training=DISTRIBUTED_TEST_MODULE.format(lr=0.1))
    pytester.runpytest("--torchcheck-update-golden").assert_outcomes(passed=2)
    (path,) = goldens(pytester)
    assert "-ws2-" in path.name
    pytester.runpytest().assert_outcomes(passed=2)
    pytester.makepyfile(test_training=DISTRIBUTED_TEST_MODULE.format(lr=0.2))
    changed = pytester.runpytest()
    changed.assert_outcomes(passed=1, failed=1)
    changed.stdout.fnmatch_lines(["*failed on ranks 0, 1 of 2*", "*The learning rate differs from step 1 on (0.2 vs golden 0.1)*"])
