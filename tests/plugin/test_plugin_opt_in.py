"""Installing torchcheck changes no suite: the plugin acts only where a run turns it on.

The entry point loads into every pytest run in the environment. A suite that does not
turn the plugin on must run exactly as without torchcheck (same outcomes, no warnings,
no header line), and must start beside pytest-torch, another plugin for PyTorch tests.
"""

from __future__ import annotations

from importlib.metadata import version

import pytest
import torch

LEAKS_THREADS_UNDER_W_ERROR = """
import torch

def test_changes_torch_state_on_purpose():
    torch.set_num_threads(1)
"""

USES_SEEDED = """
def test_seeded(seeded):
    assert isinstance(seeded, int)
"""


def _not_opted_in(pytester: pytest.Pytester) -> None:
    (pytester.path / "tox.ini").unlink()


def _header(result: pytest.RunResult) -> list[str]:
    """The session header: the lines before "collected ...", less the list of loaded
    plugin distributions (which names torchcheck-lint as long as it is loaded)."""
    lines = result.stdout.lines
    end = next(i for i, line in enumerate(lines) if line.startswith("collected"))
    return [line for line in lines[:end] if not line.startswith("plugins:")]


def test_a_suite_that_does_not_turn_the_plugin_on_runs_as_without_torchcheck(
    pytester: pytest.Pytester,
) -> None:
    _not_opted_in(pytester)
    pytester.makepyfile(LEAKS_THREADS_UNDER_W_ERROR)
    threads = torch.get_num_threads()
    try:
        installed = pytester.runpytest("-W", "error", "-p", "no:randomly")
        absent = pytester.runpytest("-W", "error", "-p", "no:randomly", "-p", "no:torchcheck")
    finally:
        torch.set_num_threads(threads)
    installed.assert_outcomes(passed=1)
    absent.assert_outcomes(passed=1)
    assert _header(installed) == _header(absent)
    installed.stdout.no_fnmatch_line("*TorchStateLeakWarning*")


def test_a_suite_that_does_not_turn_the_plugin_on_never_imports_its_hooks(
    pytester: pytest.Pytester,
) -> None:
    _not_opted_in(pytester)
    pytester.makepyfile(
        """
        import sys

        def test_nothing_of_the_plugin_is_loaded(request):
            assert request.config.pluginmanager.hasplugin("torchcheck")
            assert not request.config.pluginmanager.hasplugin("torchcheck-hooks")
            assert "torchcheck.plugin.hooks" not in sys.modules
        """
    )
    pytester.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_without_turning_it_on_its_fixtures_are_not_there(pytester: pytest.Pytester) -> None:
    _not_opted_in(pytester)
    pytester.makepyfile(USES_SEEDED)
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*fixture 'seeded' not found*"])


@pytest.mark.parametrize(
    "turned_on_by",
    [["--torchcheck"], ["--torchcheck-seed", "3"], ["--torchcheck-strict-state"], "ini"],
    ids=["--torchcheck", "--torchcheck-seed", "--torchcheck-strict-state", "ini"],
)
def test_the_ini_key_or_any_torchcheck_option_turns_the_plugin_on(
    pytester: pytest.Pytester, turned_on_by: list[str] | str
) -> None:
    if turned_on_by != "ini":
        _not_opted_in(pytester)
    pytester.makepyfile(USES_SEEDED)
    args = turned_on_by if isinstance(turned_on_by, list) else []
    pytester.runpytest("-p", "no:randomly", *args).assert_outcomes(passed=1)


def test_torchcheck_false_in_the_ini_file_keeps_it_off(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\ntorchcheck = false\n")
    pytester.makepyfile(USES_SEEDED)
    pytester.runpytest().assert_outcomes(errors=1)


def test_the_environment_alone_does_not_turn_the_plugin_on(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    _not_opted_in(pytester)
    monkeypatch.setenv("TORCHCHECK_DEVICES", "cpu,mps")  # would be a usage error if on
    pytester.makepyfile("def test_x():\n    pass\n")
    pytester.runpytest().assert_outcomes(passed=1)


def test_pytest_starts_with_pytest_torch_loaded_beside_torchcheck(
    pytester: pytest.Pytester,
) -> None:
    """Both plugins loaded; neither an option name nor torch_device's parametrization
    collides, and in a run that turned torchcheck on, torch_device is torchcheck's."""
    assert version("pytest-torch") == "1.1.1"  # in the test extra
    pytester.makepyfile(
        """
        import pytest
        import torch

        def test_both_plugins_are_loaded(request):
            assert request.config.pluginmanager.hasplugin("pytest_torch")
            assert request.config.pluginmanager.hasplugin("torchcheck-hooks")

        @pytest.mark.devices("cpu")
        def test_torch_device_is_torchchecks(torch_device):
            assert isinstance(torch_device, torch.device)
        """
    )
    result = pytester.runpytest("-p", "no:randomly", "-v", "--torchcheck-device", "cpu")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*test_torch_device_is_torchchecks[[]cpu[]] PASSED*"])


def test_pytest_torch_keeps_its_own_torch_device_in_a_suite_without_torchcheck(
    pytester: pytest.Pytester,
) -> None:
    _not_opted_in(pytester)
    pytester.makepyfile(
        """
        def test_device_is_pytest_torchs(torch_device):
            assert torch_device == "cpu"  # pytest-torch's fixture yields a string
        """
    )
    pytester.runpytest("-p", "no:randomly", "--torch-device", "cpu").assert_outcomes(passed=1)
