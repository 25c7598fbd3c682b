"""The seeded fixture: per-test seeds that never depend on order or worker, and replays."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import torch

from torchcheck.plugin.support import derive_seed
from torchcheck.checks.devices import available_devices

RECORDING_SUITE = """
import json
import os
from pathlib import Path

import pytest
import torch

def _record(request, seed):
    out = Path(os.environ["SEED_RECORDS"]) / (request.node.name + ".json")
    out.write_text(json.dumps({"seed": seed, "draw": torch.rand(3).tolist()}))

@pytest.mark.parametrize("n", range(4))
def test_many(seeded, request, n):
    _record(request, seeded)

def test_alone(seeded, request):
    _record(request, seeded)
"""


def _records(directory: Path) -> dict[str, dict[str, object]]:
    return {p.stem: json.loads(p.read_text()) for p in sorted(directory.glob("*.json"))}


def test_seeded_fixture_returns_the_derived_seed_and_turns_on_determinism(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        test_seed="""
        import os
        import torch

        def test_inside(seeded):
            print(f"SEED={seeded}")
            assert torch.are_deterministic_algorithms_enabled()
            assert os.environ["CUBLAS_WORKSPACE_CONFIG"]

        def test_after():
            assert not torch.are_deterministic_algorithms_enabled()
        """
    )
    result = pytester.runpytest("-s", "-p", "no:randomly", "--torchcheck-seed", "5", "-W", "error")
    result.assert_outcomes(passed=2)
    assert f"SEED={derive_seed(5, 'test_seed.py::test_inside')}" in result.stdout.str()


def test_seeded_fixture_makes_two_runs_identical(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import torch

        def test_draw(seeded):
            print("DRAW", torch.rand(4).tolist())
        """
    )
    draws = [
        re.findall(r"DRAW (.*)", pytester.runpytest("-s").stdout.str()) for _ in range(2)
    ]
    assert draws[0] and draws[0] == draws[1]


def test_seed_is_the_same_alone_in_a_full_run_in_reverse_order_and_under_xdist(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_rec=RECORDING_SUITE)
    ids = [f"test_rec.py::test_many[{n}]" for n in range(4)] + ["test_rec.py::test_alone"]
    runs = {
        "full": ["-p", "no:randomly"],
        "alone": ["test_rec.py::test_alone"],
        "reversed": ["-p", "no:randomly", *reversed(ids)],
        "xdist": ["-n", "2"],
    }
    seen: dict[str, dict[str, dict[str, object]]] = {}
    for name, args in runs.items():
        directory = pytester.mkdir(f"records_{name}")
        monkeypatch.setenv("SEED_RECORDS", str(directory))
        # xdist needs fresh processes; the others run in-process, which is much faster.
        run = pytester.runpytest_subprocess if name == "xdist" else pytester.runpytest
        run("-p", "no:cacheprovider", *args).assert_outcomes(passed=1 if name == "alone" else 5)
        seen[name] = _records(directory)
    assert seen["full"] == seen["reversed"] == seen["xdist"]
    assert seen["alone"]["test_alone"] == seen["full"]["test_alone"]
    assert seen["full"]["test_alone"]["seed"] == derive_seed(0, "test_rec.py::test_alone")
    assert len({r["seed"] for r in seen["full"].values()}) == 5


def test_failing_test_reports_the_seed_and_a_replay_command_that_reproduces_it(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        test_fail="""
        def test_broken(seeded, torch_device):
            print(f"SEED={seeded}")
            assert False
        """
    )
    result = pytester.runpytest("--torchcheck-seed", "11")
    result.assert_outcomes(failed=len(available_devices()))  # one run per device found
    seed = derive_seed(11, "test_fail.py::test_broken[cpu]")
    result.stdout.fnmatch_lines(
        [
            "*- torchcheck replay -*",
            f"seed: {seed} (derived from --torchcheck-seed=11 and the node id)",
            "replay: pytest 'test_fail.py::test_broken[cpu]' --torchcheck-seed=11 --torchcheck-device=cpu",
        ]
    )
    replay = pytester.runpytest(
        "test_fail.py::test_broken[cpu]", "--torchcheck-seed=11", "--torchcheck-device=cpu"
    )
    replay.assert_outcomes(failed=1)
    assert f"SEED={seed}" in replay.stdout.str()


def test_failures_without_torchcheck_fixtures_and_passing_tests_get_no_replay_section(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        """
        def test_plain_failure():
            assert False

        def test_passes(seeded):
            pass
        """
    )
    result = pytester.runpytest("-rA")
    result.assert_outcomes(failed=1, passed=1)
    result.stdout.no_fnmatch_line("*torchcheck replay*")


def test_a_test_that_could_not_run_as_written_gets_no_replay_section(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        """
        import pytest

        def test_rank_without_a_process_group(rank, seeded):
            pass

        @pytest.mark.distributed(world_size=0)
        def test_bad_marker(seeded):
            pass
        """
    )
    result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(["*the rank fixture needs a process group*", "*world_size*"])
    result.stdout.no_fnmatch_line("*torchcheck replay*")


def test_replay_command_omits_a_device_the_test_parametrized_itself(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        test_meta="""
        import pytest

        @pytest.mark.parametrize("torch_device", ["meta"], indirect=True)
        def test_broken(torch_device, seeded):
            assert False
        """
    )
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["replay: pytest 'test_meta.py::test_broken[[]meta[]]' --torchcheck-seed=0"]
    )


def test_seeded_fixture_restores_rng_state_after_the_test(pytester: pytest.Pytester) -> None:
    before = torch.get_rng_state()
    pytester.makepyfile("def test_x(seeded): pass")
    pytester.runpytest().assert_outcomes(passed=1)
    assert torch.equal(torch.get_rng_state(), before)
