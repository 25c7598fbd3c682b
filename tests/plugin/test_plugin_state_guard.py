"""The always-on state guard: restore leaked torch global state, then warn (or fail)."""

from __future__ import annotations

import pytest

LEAKING_SUITE = """
import torch

def test_leaks_dtype_and_grad_mode():
    torch.set_default_dtype(torch.float64)
    torch.set_grad_enabled(False)

def test_next_test_sees_clean_state():
    assert torch.get_default_dtype() == torch.float32
    assert torch.is_grad_enabled()
"""


def test_leaked_state_warns_naming_each_setting_and_is_restored_for_the_next_test(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_leak=LEAKING_SUITE)
    result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(passed=2, warnings=1)
    result.stdout.fnmatch_lines(
        [
            "test_leak.py::test_leaks_dtype_and_grad_mode",
            "*test_leak.py:*: TorchStateLeakWarning: test leaked torch global state*",
            "*- default dtype changed from torch.float32 to torch.float64",
            "*- grad mode (torch.is_grad_enabled()) changed from True to False",
        ]
    )


def test_strict_state_turns_the_leak_into_a_teardown_error_and_still_restores(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_leak=LEAKING_SUITE)
    result = pytester.runpytest("-p", "no:randomly", "--torchcheck-strict-state")
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(
        ["*ERROR at teardown of test_leaks_dtype_and_grad_mode*", "*default dtype changed*"]
    )


@pytest.mark.parametrize("source", ["env", "ini"])
def test_strict_state_can_come_from_the_environment_or_the_ini_file(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, source: str
) -> None:
    if source == "env":
        monkeypatch.setenv("TORCHCHECK_STRICT_STATE", "1")
    else:
        pytester.makeini("[pytest]\ntorchcheck = true\ntorchcheck_strict_state = true\n")
    pytester.makepyfile(test_leak=LEAKING_SUITE)
    pytester.runpytest("-p", "no:randomly").assert_outcomes(passed=2, errors=1)


def test_tests_that_restore_their_state_and_seeded_tests_are_not_reported(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        """
        import pytest
        import torch

        @pytest.fixture
        def float64():
            torch.set_default_dtype(torch.float64)
            yield
            torch.set_default_dtype(torch.float32)

        def test_restoring_fixture(float64):
            assert torch.get_default_dtype() == torch.float64

        def test_seeded(seeded):
            torch.set_num_threads(1)
            torch.set_num_threads(torch.get_num_threads())

        def test_no_grad_block():
            with torch.no_grad():
                pass
        """
    )
    result = pytester.runpytest("--torchcheck-strict-state", "-W", "error")
    result.assert_outcomes(passed=3)


def test_state_set_by_a_session_fixture_is_not_blamed_on_any_test(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeconftest(
        """
        import pytest
        import torch

        @pytest.fixture(scope="module", autouse=True)
        def double_precision():
            torch.set_default_dtype(torch.float64)
            yield
            torch.set_default_dtype(torch.float32)
        """
    )
    body = "import torch\n\ndef test_{}():\n    assert torch.get_default_dtype() == torch.float64\n"
    pytester.makepyfile(test_one=body.format("a"), test_two=body.format("b"))
    result = pytester.runpytest("--torchcheck-strict-state", "-W", "error")
    result.assert_outcomes(passed=2)


def test_the_guard_stays_idle_in_a_suite_that_never_imports_torch(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        """
        import sys

        def test_first():
            pass

        def test_guard_imported_nothing():
            assert "torch" not in sys.modules
            assert "torchcheck.checks.state" not in sys.modules
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:randomly", "--torchcheck-strict-state")
    result.assert_outcomes(passed=2)


LEAKED_AUTOCAST_SUITE = """
import torch

def test_leaves_autocast_entered_and_anomaly_on():
    torch.autocast("cpu", dtype=torch.bfloat16).__enter__()
    torch.autograd.set_detect_anomaly(True)

def test_next_test_runs_in_float32_without_anomaly_detection():
    assert not torch.is_autocast_enabled("cpu")
    assert not torch.is_anomaly_enabled()
    assert (torch.ones(2, 2) @ torch.ones(2, 2)).dtype == torch.float32
"""


def test_a_leaked_autocast_region_and_anomaly_mode_are_reported_and_closed(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_leak=LEAKED_AUTOCAST_SUITE)
    result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(passed=2, warnings=1)
    result.stdout.fnmatch_lines(
        [
            "*TorchStateLeakWarning: test leaked torch global state*",
            "*- anomaly detection (torch.autograd.set_detect_anomaly) changed from False to True",
            "*- autocast on cpu (torch.is_autocast_enabled('cpu')) changed from False to True",
            "*- autocast nesting depth (autocast regions entered and never exited) changed from 0 to 1",
        ]
    )


def test_tf32_flags_set_through_the_new_api_are_reported_without_breaking_the_guard(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        """
        import torch

        def test_switches_every_backend_to_tf32():
            torch.backends.fp32_precision = "tf32"

        def test_next_test_reads_the_legacy_flags_again():
            assert torch.get_float32_matmul_precision() == "highest"
            assert torch.backends.fp32_precision == "none"
        """
    )
    result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(passed=2, warnings=1)
    result.stdout.fnmatch_lines(["*- torch.backends.fp32_precision changed from none to tf32"])


def test_changed_print_options_are_not_reported_since_they_change_no_result(
    pytester: pytest.Pytester,
) -> None:
    from torchcheck.checks.state import capture_print_options, restore_print_options

    pytester.makepyfile(
        """
        import torch

        def test_prints_with_two_digits():
            torch.set_printoptions(precision=2)
        """
    )
    before = capture_print_options()
    try:
        result = pytester.runpytest("-p", "no:randomly", "--torchcheck-strict-state", "-W", "error")
    finally:
        restore_print_options(before)  # the inner run shares this process
    result.assert_outcomes(passed=1)
