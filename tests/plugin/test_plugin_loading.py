"""Loading the plugin is free: no torch, no libcst, under 50 ms on a suite that ignores it."""

from __future__ import annotations

import os
import resource
import subprocess
import sys

import pytest

PAIRS = 7
BUDGET_SECONDS = 0.050

TINY_SUITE = """
def test_one():
    assert 1 + 1 == 2

def test_two():
    assert "a" * 2 == "aa"
"""


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
    assert added.split() == ["torchcheck", "torchcheck._plugin_support", "torchcheck.plugin"]
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


def test_the_plugin_costs_less_than_50ms_on_a_suite_that_uses_no_fixture(
    pytester: pytest.Pytester,
) -> None:
    """Runs with and without the plugin, alternating; the difference of the fastest run of
    each is the cost.

    Measured as the child's CPU time (user + system), which, unlike wall time, does not
    swing by 100 ms when the other xdist worker keeps the machine's cores busy. Even CPU time
    grows by tens of milliseconds on a busy machine (caches, frequency), never shrinks below
    what the work needs, so the fastest run of each kind is the one to compare.
    """
    pytester.makepyfile(TINY_SUITE)
    base = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    without, with_plugin = [*base, "-p", "no:torchcheck"], base
    costs_with, costs_without = [], []
    for pair in range(PAIRS):
        # Alternate the order inside each pair so drift in machine load cancels out.
        if pair % 2:
            costs_with.append(_cpu_seconds(with_plugin))
            costs_without.append(_cpu_seconds(without))
        else:
            costs_without.append(_cpu_seconds(without))
            costs_with.append(_cpu_seconds(with_plugin))
    cost = min(costs_with) - min(costs_without)
    assert cost < BUDGET_SECONDS, f"plugin costs {cost * 1000:.1f} ms: with {costs_with}, without {costs_without}"


def _cpu_seconds(command: list[str]) -> float:
    """CPU time (user + system) that one run of ``command`` took."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=dict(os.environ))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def test_disabling_the_plugin_removes_its_fixtures(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_x(torch_device): pass")
    result = pytester.runpytest("-p", "no:torchcheck")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*fixture 'torch_device' not found*"])


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
            "*--torch-device=LIST*",
            "*TORCHCHECK_DEVICES*",
            "*--torch-seed=N*",
            "*--torchcheck-strict-state*",
            "*torch_devices (string)*",
            "*torch_seed (string)*",
            "*torchcheck_strict_state (string)*",
        ]
    )
