"""xdist: each worker pinned to its slice of the caller's CUDA_VISIBLE_DEVICES.

The pinning only edits an environment variable before CUDA starts, so a CPU machine can
check it: the inner suite never imports torch and just records what each worker sees.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

RECORDING_CONFTEST = """
import json
import os
from pathlib import Path

def pytest_configure(config):
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker is not None:
        record = Path(os.environ["MASK_RECORDS"]) / f"{worker}.json"
        record.write_text(json.dumps(os.environ.get("CUDA_VISIBLE_DEVICES")))
"""


def _worker_masks(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, mask: str, *args: str
) -> dict[str, str | None]:
    records = pytester.mkdir("masks")
    monkeypatch.setenv("MASK_RECORDS", str(records))
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", mask)
    pytester.makeconftest(RECORDING_CONFTEST)
    pytester.makepyfile("def test_one():\n    pass\n\ndef test_two():\n    pass\n")
    result = pytester.runpytest_subprocess("-n", "2", "-p", "no:cacheprovider", *args)
    result.assert_outcomes(passed=2)
    return {p.stem: json.loads(p.read_text()) for p in Path(records).glob("*.json")}


def test_each_worker_sees_its_own_slice_of_the_callers_cuda_mask(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    masks = _worker_masks(pytester, monkeypatch, "GPU-aaaa,5")
    assert masks == {"gw0": "GPU-aaaa", "gw1": "5"}


def test_workers_keep_the_callers_mask_when_cuda_is_not_requested(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    masks = _worker_masks(pytester, monkeypatch, "3,5", "--torchcheck-device", "cpu")
    assert masks == {"gw0": "3,5", "gw1": "3,5"}


def test_workers_keep_the_callers_mask_in_a_run_that_did_not_turn_the_plugin_on(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    (pytester.path / "tox.ini").unlink()
    masks = _worker_masks(pytester, monkeypatch, "3,5")
    assert masks == {"gw0": "3,5", "gw1": "3,5"}


def _a_device_kind_this_machine_lacks() -> str:
    from torchcheck.plugin.support import DEVICE_KINDS
    from torchcheck.checks.devices import available_devices

    found = {device.type for device in available_devices()}
    absent = [kind for kind in DEVICE_KINDS if kind not in found]
    if not absent:
        pytest.skip("this machine has every device kind torchcheck knows")
    return absent[0]


def test_an_unavailable_requested_device_fails_the_run_before_workers_start(
    pytester: pytest.Pytester,
) -> None:
    absent = _a_device_kind_this_machine_lacks()
    pytester.makepyfile("def test_x(torch_device):\n    pass\n")
    result = pytester.runpytest_subprocess("-n", "2", "--torchcheck-device", absent)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*--torchcheck-device={absent} asked for {absent}*"])


def test_counting_physical_gpus_returns_indices_without_touching_torch() -> None:
    from torchcheck.plugin import _physical_gpu_ids

    ids = _physical_gpu_ids()  # () on a machine without an NVIDIA driver
    assert all(i.isdigit() for i in ids)
    assert list(ids) == [str(n) for n in range(len(ids))]
