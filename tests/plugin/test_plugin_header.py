"""The one-line report header: only when torch is in play, never imported just for it."""

from __future__ import annotations

import pytest

HEADER = (
    "torchcheck: torch *, devices: cpu*, seed: 7 (--torchcheck-seed), "
    "deterministic algorithms: off*"
)


def test_header_names_torch_version_devices_seed_and_determinism(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeconftest("import torch")
    pytester.makepyfile("def test_x():\n    pass\n")
    result = pytester.runpytest("--torchcheck-seed", "7")
    result.stdout.fnmatch_lines([HEADER, "collected 1 item"])


def test_header_follows_collection_when_only_a_test_module_uses_a_fixture(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile("def test_x(seeded):\n    pass\n")
    result = pytester.runpytest_subprocess("--torchcheck-seed", "7", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["collected 1 item", HEADER])


def test_a_suite_without_torch_gets_no_header(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_x():\n    pass\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    result.stdout.no_fnmatch_line("*torchcheck: torch*")
