"""Loading the plugin is free: no torch, no libcst, under 50 ms on a suite that ignores it."""

from __future__ import annotations

import subprocess
import sys

import pytest

RUNS = 5
BUDGET_SECONDS = 0.050


def test_loading_the_plugin_imports_neither_torch_nor_libcst() -> None:
    code = (
        "import sys, torchcheck.plugin\n"
        "heavy = [m for m in ('torch', 'libcst', 'numpy') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


LOAD_FOOTPRINT = """
import dataclasses, sys
import pytest

before = set(sys.modules)
import torchcheck.plugin

added = sorted(set(sys.modules) - before)
dataclasses_built = sorted(
    f"{module}.{name}"
    for module in added
    for name, value in vars(sys.modules[module]).items()
    if isinstance(value, type) and dataclasses.is_dataclass(value) and value.__module__ == module
)
print(" ".join(added))
print(" ".join(dataclasses_built) or "none")
"""


def test_loading_the_plugin_after_pytest_adds_only_torchcheck_modules_and_builds_no_dataclass() -> None:
    """What keeps the import at a few milliseconds, checked without timing it: nothing
    beyond what pytest itself imports, and no dataclass (about 1 ms each to build)."""
    result = subprocess.run(
        [sys.executable, "-c", LOAD_FOOTPRINT], capture_output=True, text=True, check=True
    )
    added, dataclasses_built = result.stdout.splitlines()
    assert added.split() == [
        "torchcheck",
        "torchcheck.checks",
        "torchcheck.checks._localize_setting",  # owns the localize levels the option offers
        "torchcheck.plugin",
        "torchcheck.plugin.options",
        "torchcheck.plugin.support",
    ]
    assert dataclasses_built == "none"


def test_a_session_that_uses_no_fixture_never_imports_torch(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import sys

        def test_plugin_is_active_but_torch_stays_out(request):
            assert request.config.pluginmanager.hasplugin("torchcheck")
            assert "torch" not in sys.modules
            assert "libcst" not in sys.modules
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    result.stdout.no_fnmatch_line("torchcheck: torch*")


IMPORT_COST = """
import time
import pytest

start = time.process_time()
import torchcheck.plugin
print(time.process_time() - start)
"""


def test_loading_the_plugin_after_pytest_costs_less_than_50ms_of_cpu() -> None:
    """What the plugin adds to a suite that uses none of it is its import after pytest's own
    (its hooks do nothing until a fixture or marker asks). Timed inside fresh processes, the
    fastest of several: timing two whole pytest runs and subtracting them swung by +-80 ms on
    a busy CI machine, around a real cost of a few milliseconds."""
    costs = [
        float(subprocess.run([sys.executable, "-c", IMPORT_COST], capture_output=True, text=True, check=True).stdout)
        for _ in range(RUNS)
    ]
    assert min(costs) < BUDGET_SECONDS, f"importing the plugin costs {min(costs) * 1000:.1f} ms: {costs}"


def test_disabling_the_plugin_removes_its_fixtures(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_x(seeded): pass")
    result = pytester.runpytest("-p", "no:torchcheck")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*fixture 'seeded' not found*"])


def test_markers_are_registered_so_strict_markers_accepts_them(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.cpu
        @pytest.mark.devices("cpu")
        def test_marked():
            pass
        """
    )
    result = pytester.runpytest("--strict-markers", "-W", "error")
    result.assert_outcomes(passed=1)
    result = pytester.runpytest("--markers")
    result.stdout.fnmatch_lines(["@pytest.mark.cuda:*", "@pytest.mark.devices(*names):*"])


def test_help_lists_every_option_with_its_environment_and_ini_names(
    pytester: pytest.Pytester,
) -> None:
    result = pytester.runpytest("--help")
    result.stdout.fnmatch_lines(
        [
            "*--torchcheck *Turn the torchcheck plugin on for this run*",
            "*--torchcheck-device=LIST*",
            "*TORCHCHECK_DEVICES*",
            "*--torchcheck-seed=N*",
            "*--torchcheck-strict-state*",
            "*torchcheck (bool)*",
            "*torchcheck_devices (string)*",
            "*torchcheck_seed (string)*",
            "*torchcheck_strict_state (bool)*",
        ]
    )
