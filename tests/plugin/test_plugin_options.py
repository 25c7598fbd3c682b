"""Options, environment variables and ini settings: precedence and usage errors."""

from __future__ import annotations

import re

import pytest

from torchcheck.plugin.support import derive_seed

SEED_PROBE = """
def test_probe(seeded):
    print(f"SEED={seeded}")
"""


def _reported_seed(result: pytest.RunResult) -> int:
    [seed] = re.findall(r"SEED=(\d+)", result.stdout.str())
    return int(seed)


@pytest.mark.usefixtures("cpu_only_machine")
def test_unavailable_requested_device_exits_with_usage_error(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile("def test_x(torch_device): pass")
    result = pytester.runpytest("--torchcheck-device", "cuda")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: --torchcheck-device=cuda asked for cuda, but it is not available*(found: cpu*"]
    )


def test_unavailable_device_from_the_environment_names_the_variable(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TORCHCHECK_DEVICES", "cpu,mps")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: TORCHCHECK_DEVICES=cpu,mps asked for mps*"])


def test_unknown_device_in_the_ini_file_names_the_ini_option(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeini("[pytest]\ntorchcheck = true\ntorchcheck_devices = cpu, gpu\n")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: ini option torchcheck_devices: unknown device 'gpu'*"])


def test_invalid_seed_is_a_usage_error_naming_its_source(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TORCHCHECK_SEED", "abc")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: TORCHCHECK_SEED: expected a non-negative integer*"])


def test_seed_precedence_is_cli_over_environment_over_ini(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makeini("[pytest]\ntorchcheck = true\ntorchcheck_seed = 1\n")
    pytester.makepyfile(test_probe=SEED_PROBE)
    nodeid = "test_probe.py::test_probe"

    assert _reported_seed(pytester.runpytest("-s")) == derive_seed(1, nodeid)
    monkeypatch.setenv("TORCHCHECK_SEED", "2")
    assert _reported_seed(pytester.runpytest("-s")) == derive_seed(2, nodeid)
    result = pytester.runpytest("-s", "--torchcheck-seed", "3")
    assert _reported_seed(result) == derive_seed(3, nodeid)


def test_device_precedence_is_cli_over_environment_over_ini(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makeini("[pytest]\ntorchcheck = true\ntorchcheck_devices = mps\n")
    monkeypatch.setenv("TORCHCHECK_DEVICES", "cuda")
    pytester.makepyfile("def test_x(torch_device): pass")
    result = pytester.runpytest("--torchcheck-device", "cpu", "-v")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*test_x[[]cpu[]] PASSED*"])
