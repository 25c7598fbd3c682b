"""The torch_device fixture and the cpu/cuda/mps/devices markers.

GPU paths run on CPU-only CI by faking what ``available_devices()`` finds, and paths
without an accelerator run on GPU machines the same way (``cpu_only_machine``); the
generated cuda tests only check the device they were given, they never allocate on it.
"""

from __future__ import annotations

import pytest
import torch

import torchcheck.checks.devices as devices_module

DEVICE_PROBE = """
import pytest
import torch

def test_any(torch_device):
    assert isinstance(torch_device, torch.device)
    assert torch_device.type in ("cpu", "cuda", "mps")
"""


@pytest.fixture
def fake_gpu_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the plugin believe this machine has two CUDA devices."""
    found = [torch.device("cpu"), torch.device("cuda", 0), torch.device("cuda", 1)]
    monkeypatch.setattr(devices_module, "available_devices", lambda: list(found))


@pytest.mark.usefixtures("cpu_only_machine")
def test_torch_device_runs_only_on_cpu_when_no_accelerator_is_found(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(DEVICE_PROBE)
    result = pytester.runpytest("-v")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*test_any[[]cpu[]] PASSED*"])


@pytest.mark.usefixtures("fake_gpu_machine")
def test_a_gpu_machine_generates_cuda_runs_that_minus_m_cuda_selects(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(DEVICE_PROBE)
    result = pytester.runpytest("-v", "-m", "cuda")
    result.assert_outcomes(passed=1, deselected=1)
    result.stdout.fnmatch_lines(["*test_any[[]cuda[]] PASSED*"])
    result = pytester.runpytest("-v", "-m", "cpu")
    result.assert_outcomes(passed=1, deselected=1)


@pytest.mark.usefixtures("fake_gpu_machine")
def test_the_requested_device_list_restricts_the_generated_runs(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(DEVICE_PROBE)
    result = pytester.runpytest("-v", "--torchcheck-device", "cuda")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*test_any[[]cuda[]] PASSED*"])


@pytest.mark.usefixtures("fake_gpu_machine")
def test_a_devices_marker_restricts_torch_device_for_one_test(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.devices("cuda")
        def test_gpu_only(torch_device):
            assert torch_device.type == "cuda"

        def test_everywhere(torch_device):
            pass
        """
    )
    result = pytester.runpytest("-v")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["*test_gpu_only[[]cuda[]] PASSED*"])


@pytest.mark.usefixtures("cpu_only_machine")
def test_a_devices_marker_generates_no_run_for_a_device_the_machine_lacks(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.devices("cpu", "cuda")
        def test_fused(torch_device):
            pass
        """
    )
    result = pytester.runpytest("-v")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*collected 1 item*", "*test_fused[[]cpu[]] PASSED*"])


@pytest.mark.usefixtures("cpu_only_machine")
def test_a_cuda_marked_test_is_skipped_with_a_reason_when_cuda_is_absent(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.cuda
        def test_plain():
            pass

        @pytest.mark.cuda
        def test_with_device(torch_device):
            pass
        """
    )
    result = pytester.runpytest("-rs")
    result.assert_outcomes(skipped=2)
    result.stdout.fnmatch_lines(["SKIPPED*needs cuda, which is not available (found: cpu*"])


@pytest.mark.usefixtures("cpu_only_machine")
def test_an_explicitly_requested_cuda_test_is_never_silently_skipped(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.cuda
        def test_plain():
            pass
        """
    )
    result = pytester.runpytest("-m", "cuda", "--torchcheck-device", "cuda")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*asked for cuda*not available*"])


@pytest.mark.usefixtures("fake_gpu_machine")
def test_an_explicitly_requested_cuda_test_runs_on_a_gpu_machine(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.cuda
        def test_plain():
            pass

        def test_on_device(torch_device):
            assert torch_device.type == "cuda"
        """
    )
    result = pytester.runpytest("-m", "cuda", "--torchcheck-device", "cuda")
    result.assert_outcomes(passed=2)


@pytest.mark.usefixtures("fake_gpu_machine")
def test_a_cuda_test_excluded_by_the_requested_devices_is_skipped_naming_the_option(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.cuda
        def test_plain():
            pass
        """
    )
    result = pytester.runpytest("-rs", "--torchcheck-device", "cpu")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*needs cuda, but --torchcheck-device restricts this run to cpu*"])


def test_an_unknown_device_in_a_devices_marker_is_a_collection_error(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.devices("gpu")
        def test_x(torch_device):
            pass
        """
    )
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["*@pytest.mark.devices on test_*.py::test_x: unknown device 'gpu'*"]
    )


def test_a_test_that_parametrizes_torch_device_itself_is_left_alone(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.parametrize("torch_device", ["meta"], indirect=True)
        def test_meta(torch_device):
            assert torch_device.type == "meta"
        """
    )
    result = pytester.runpytest("-v")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*test_meta[[]meta[]] PASSED*"])


@pytest.mark.usefixtures("cpu_only_machine")
def test_fixtures_that_depend_on_torch_device_are_parametrized_too(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        """
        import pytest
        import torch

        @pytest.fixture
        def weights(torch_device):
            return torch.ones(2, device=torch_device)

        def test_sum(weights):
            assert weights.sum().item() == 2
        """
    )
    result = pytester.runpytest("-v")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*test_sum[[]cpu[]] PASSED*"])
