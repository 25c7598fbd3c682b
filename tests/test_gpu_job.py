"""The GPU job (.ci/gpu, docs/gpu-ci.md), checked where it cannot run: on a CPU machine.

It selects the tests by the ``cuda`` marker, so a test skipped for want of a GPU without
that marker would run nowhere: the suite must have none. Its dry run lists what a one-GPU
machine would run; without a GPU a real run stops at once; its audit fails a run that
skipped its GPU work; and the workflow that starts it is the one the docs show.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
CI = ROOT / ".ci"
WORKFLOW = ROOT / ".github" / "workflows" / "gpu.yml"
DOCS_PAGE = ROOT / "docs" / "gpu-ci.md"
SUITE = (ROOT / "tests", ROOT / "fixtures" / "example_project" / "tests")
# What an outer pytest run (an xdist worker, a configured device list) must not pass on.
OUTER_ENVIRONMENT = (
    "PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID", "PYTEST_ADDOPTS",
    "TORCHCHECK_DEVICES", "TORCHCHECK_SEED", "TORCHCHECK_STRICT_STATE", "TORCHCHECK_GOLDEN_MISSING",
    "TORCHCHECK_UPDATE_GOLDEN", "OUT", "GITHUB_STEP_SUMMARY",
)
CONVERTED_CUDA_TESTS = (
    "tests/checks/test_amp.py::test_amp_step_passes_the_float16_step_on_cuda",
    "tests/checks/test_devices.py::test_devices_agree_catches_a_hard_coded_device_on_cuda",
    "tests/checks/test_state.py::test_capturing_and_restoring_state_never_initialises_cuda",
)

sys.path.insert(0, str(CI))
from junit_audit import main as audit_main  # noqa: E402  (.ci/ is no package)
from source_dist_info import write_dist_info  # noqa: E402


def without_a_gpu(**extra: str) -> dict[str, str]:
    """The environment of a job started on this machine, with every GPU hidden from torch."""
    environment = {k: v for k, v in os.environ.items() if k not in OUTER_ENVIRONMENT}
    return {**environment, "CUDA_VISIBLE_DEVICES": "", "PYTHON": sys.executable, **extra}


def run_job(*arguments: str, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CI / "gpu"), *arguments], cwd=ROOT, env=without_a_gpu(**extra), capture_output=True, text=True, timeout=300
    )


# --- the workflow -------------------------------------------------------------------


def test_the_workflow_runs_the_job_on_a_gpu_runner_and_only_for_labelled_pull_requests_of_this_repository() -> None:
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    triggers = workflow[True]  # YAML 1.1 reads the key `on` as true
    job = workflow["jobs"]["gpu"]
    steps = job["steps"]
    assert set(triggers) == {"push", "pull_request", "schedule", "workflow_dispatch"}
    assert triggers["workflow_dispatch"]["inputs"]["update_golden"]["type"] == "boolean"
    assert workflow["permissions"] == {"contents": "read"}
    assert "'ci:gpu'" in job["if"] and "head.repo.full_name == github.repository" in job["if"]
    assert "gpu" in job["runs-on"] and job["timeout-minutes"] <= 15
    assert "--gpus all" in job["container"]["options"] and "--ipc=host" in job["container"]["options"]
    (command,) = [step["run"] for step in steps if "run" in step]
    assert ".ci/gpu" in command and "'--update-golden'" in command
    (upload,) = [step for step in steps if step.get("uses", "").startswith("actions/upload-artifact")]
    assert upload["if"] == "always()" and ".ci-results/" in upload["with"]["path"]


def test_the_docs_show_the_workflow_file_as_it_is() -> None:
    page = DOCS_PAGE.read_text(encoding="utf-8")
    (shown,) = re.findall(r"^```yaml\n(.*?)^```$", page, re.MULTILINE | re.DOTALL)
    assert shown == WORKFLOW.read_text(encoding="utf-8")


# --- the job ------------------------------------------------------------------------


def test_without_a_gpu_the_job_stops_before_running_a_test_and_says_why(tmp_path: Path) -> None:
    result = run_job(OUT=str(tmp_path))
    assert result.returncode == 2, result.stdout + result.stderr
    assert "no CUDA device is visible to torch" in result.stderr
    assert "must not go green by skipping" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_the_dry_run_lists_what_a_one_gpu_machine_runs_from_a_checkout_that_is_not_installed(tmp_path: Path) -> None:
    paths = ["tests/checks/test_amp.py", "tests/checks/test_devices.py", "tests/checks/test_state.py",
             "fixtures/example_project/tests/test_tinyproject.py", "fixtures/example_project/tests/test_training_run.py"]
    result = run_job("--dry-run", "--from-source", "--", *paths, OUT=str(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"torchcheck: from {ROOT}/src (not installed)" in result.stdout
    main_phase = next(line for line in result.stdout.splitlines() if line.startswith("main (360 s): "))
    for option in ("-m 'cuda and not multi_gpu'", "--torchcheck-device cpu,cuda", "-n 4",
                   "--torchcheck-golden-missing=fail", f"--junitxml={tmp_path}/gpu.xml"):
        assert option in main_phase
    listed = set(result.stdout.split("collected as on a machine with 1 GPU)\n")[1].splitlines())
    assert set(CONVERTED_CUDA_TESTS) <= listed
    example = "fixtures/example_project/tests/"
    assert {
        f"{example}test_tinyproject.py::test_amp_step_uses_the_grad_scaler_correctly[cuda]",
        f"{example}test_training_run.py::test_the_training_curve_matches_its_golden[cuda]",
        f"{example}test_training_run.py::test_the_compiled_classifier_trains_like_eager[cuda]",
    } <= listed
    assert not [line for line in listed if "[cpu]" in line or "test_checkpoint_round_trips" in line]
    assert list(tmp_path.iterdir()) == []  # a dry run writes nothing


def test_a_checkout_that_is_not_installed_gets_the_entry_points_of_its_pyproject(tmp_path: Path) -> None:
    import importlib.metadata

    write_dist_info(ROOT, tmp_path)
    (distribution,) = importlib.metadata.distributions(path=[str(tmp_path)])
    assert distribution.metadata["Name"] == "torchcheck-lint"
    plugins = {(ep.group, ep.name): ep.value for ep in distribution.entry_points}
    assert plugins[("pytest11", "torchcheck")] == "torchcheck.plugin"


# --- selection by marker --------------------------------------------------------------


def files_that_mention_a_gpu() -> list[str]:
    pattern = re.compile(r"cuda|gpu", re.IGNORECASE)
    return [
        str(path.relative_to(ROOT))
        for folder in SUITE
        for path in sorted(folder.rglob("test_*.py"))
        if pattern.search(path.read_text(encoding="utf-8"))
    ]


def test_every_test_skipped_for_want_of_a_gpu_carries_the_cuda_marker_the_job_selects() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "gpu_ci_plugin", "--gpu-ci-check-selection",
         "-p", "no:randomly", *files_that_mention_a_gpu()],
        cwd=ROOT, env=without_a_gpu(PYTHONPATH=str(CI)), capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr


RAW_SKIPS = """
import pytest
import torch

needs_gpu = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a GPU")

@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_raw():
    pass

@needs_gpu
def test_aliased():
    pass

@pytest.mark.cuda
def test_marked():
    pass

@pytest.mark.skipif(True, reason="needs the network")
def test_offline():
    pass
"""


def test_the_selection_check_names_each_test_skipped_for_want_of_a_gpu_without_the_marker(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in OUTER_ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    monkeypatch.setenv("PYTHONPATH", str(CI))
    pytester.makepyfile(test_gpu=RAW_SKIPS)
    result = pytester.runpytest_subprocess("--collect-only", "-q", "--torchcheck", "-p", "gpu_ci_plugin", "--gpu-ci-check-selection")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["*tests the GPU job never selects*", "*replace the skipif with @pytest.mark.cuda*",
         "  test_gpu.py::test_raw: needs CUDA", "  test_gpu.py::test_aliased: needs a GPU"]
    )
    assert "test_marked:" not in result.stdout.str() and "test_offline:" not in result.stdout.str()


def cuda_skips_in_test_bodies(source: str) -> list[int]:
    """Lines of ``pytest.skip(...)`` calls under an ``if`` whose condition mentions CUDA."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.If) and re.search(r"cuda|gpu", ast.unparse(node.test), re.IGNORECASE):
            for inner in ast.walk(ast.Module(body=node.body, type_ignores=[])):
                if isinstance(inner, ast.Call) and ast.unparse(inner.func) in ("pytest.skip", "skip"):
                    lines.append(inner.lineno)
    return lines


def test_no_test_skips_itself_for_want_of_a_gpu_in_its_body() -> None:
    found = {
        f"{path.relative_to(ROOT)}:{line}"
        for folder in SUITE
        for path in folder.rglob("*.py")
        for line in cuda_skips_in_test_bodies(path.read_text(encoding="utf-8"))
    }
    assert not found, f"skip with @pytest.mark.cuda instead, so that .ci/gpu runs them: {sorted(found)}"


def test_a_skip_in_a_test_body_under_a_cuda_condition_is_found() -> None:
    source = "import pytest, torch\n\ndef test_x():\n    if not torch.cuda.is_available():\n        pytest.skip('no GPU')\n"
    assert cuda_skips_in_test_bodies(source) == [5]


# --- the audit --------------------------------------------------------------------------

AUDITED = """
import pytest

def test_plain():
    pass

@pytest.mark.cuda
def test_on_the_gpu():
    pass

@pytest.mark.golden
def test_golden_without_a_curve():
    pass

@pytest.mark.skip(reason="needs the network")
def test_offline():
    pass
"""


def test_the_audit_fails_a_run_that_skipped_its_gpu_work_or_compared_no_golden(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in OUTER_ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    monkeypatch.setenv("PYTHONPATH", str(CI))
    pytester.makepyfile(test_audited=AUDITED)
    junit = pytester.path / "gpu.xml"
    pytester.runpytest_subprocess("--torchcheck", "-p", "gpu_ci_plugin", f"--junitxml={junit}")
    capsys.readouterr()
    assert audit_main([str(junit), "--slowest", "2"]) == 1
    output = capsys.readouterr().out
    assert "4 tests: 2 passed, 0 failed, 0 errors, 2 skipped" in output
    assert "per marker: cuda 1, golden 1, skip 1" not in output  # skip is plumbing, not a marker worth counting
    assert "per marker: cuda 1, golden 1\n" in output
    assert "slowest 2:" in output
    problems = output.split("GPU job audit FAILED (2):\n")[1].splitlines()
    assert problems[0].startswith("  skipped for want of a GPU or a golden: test_audited::test_on_the_gpu: needs cuda")
    assert problems[1] == "  1 golden tests passed without comparing or writing a golden curve"


def test_the_audit_passes_a_run_that_did_its_work_and_fails_one_that_ran_nothing(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    pytester.makepyfile(test_plain="def test_one():\n    pass\n")
    junit = pytester.path / "gpu.xml"
    pytester.runpytest(f"--junitxml={junit}", "-p", "no:randomly")
    assert audit_main([str(junit)]) == 0
    assert audit_main([str(pytester.path / "multi-gpu.xml")]) == 1
    output = capsys.readouterr().out
    assert "multi-gpu.xml was not written" in output and "no test ran" in output


TWO_RANK_TEST = """
import pytest


@pytest.mark.distributed(world_size=2)
def test_two_ranks(torch_device):
    pass


def test_one_device(torch_device):
    pass
"""


def test_a_two_rank_cuda_test_is_marked_multi_gpu_and_only_a_selected_one_needs_two_gpus(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in OUTER_ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PYTHONPATH", str(CI))
    pytester.makepyfile(test_ranks=TWO_RANK_TEST)
    one_gpu = ("--collect-only", "-q", "--torchcheck-device", "cpu,cuda", "-p", "gpu_ci_plugin", "--gpu-ci-pretend-gpus=1")
    main_phase = pytester.runpytest_subprocess(*one_gpu, "-m", "cuda and not multi_gpu")
    assert main_phase.ret == pytest.ExitCode.OK, main_phase.stdout.str()
    collected = [line for line in main_phase.stdout.lines if line.startswith("test_ranks.py::")]
    assert collected == ["test_ranks.py::test_one_device[cuda]"]
    everything = pytester.runpytest_subprocess(*one_gpu)
    assert everything.ret == pytest.ExitCode.USAGE_ERROR
    assert "test_two_ranks" in everything.stderr.str()
