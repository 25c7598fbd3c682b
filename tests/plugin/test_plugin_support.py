"""Unit tests of the plugin's pure decisions: settings, device plans, seeds, GPU slices.

CUDA and MPS paths are exercised by passing fake device counts, so these run on any CPU.
"""

from __future__ import annotations

import pytest

from torchcheck.plugin.support import (
    DeviceUnavailableError,
    FoundDevices,
    RawSettings,
    SettingError,
    Settings,
    check_requested_available,
    cuda_allowed,
    derive_seed,
    device_marker_skip_reason,
    format_state_leak,
    parse_bool,
    parse_devices,
    parse_seed,
    parse_visible_devices,
    plan_test_devices,
    plugin_enabled,
    replay_command,
    resolve_settings,
    worker_index,
    worker_visible_devices,
)

CPU_ONLY = FoundDevices()
TWO_GPUS = FoundDevices(cuda_count=2)
MAC = FoundDevices(mps_available=True)


# --- settings ---------------------------------------------------------------------


def test_settings_default_to_all_devices_seed_zero_and_lenient_state() -> None:
    assert resolve_settings(RawSettings(), {}, RawSettings()) == Settings()


@pytest.mark.parametrize(
    ("cli", "env", "ini", "expected_seed", "expected_source"),
    [
        ("3", "2", "1", 3, "--torchcheck-seed"),
        (None, "2", "1", 2, "TORCHCHECK_SEED"),
        (None, None, "1", 1, "ini option torchcheck_seed"),
        (None, "  ", "1", 1, "ini option torchcheck_seed"),
    ],
)
def test_settings_are_resolved_cli_over_env_over_ini(
    cli: str | None, env: str | None, ini: str, expected_seed: int, expected_source: str
) -> None:
    environ = {"TORCHCHECK_SEED": env} if env is not None else {}
    settings = resolve_settings(RawSettings(seed=cli), environ, RawSettings(seed=ini))
    assert (settings.seed, settings.seed_source) == (expected_seed, expected_source)


def test_device_and_strict_state_settings_read_every_source() -> None:
    env = {"TORCHCHECK_DEVICES": "cuda", "TORCHCHECK_STRICT_STATE": "yes"}
    settings = resolve_settings(RawSettings(), env, RawSettings(devices="cpu"))
    assert settings.devices == ("cuda",)
    assert settings.devices_source == "TORCHCHECK_DEVICES"
    assert settings.strict_state is True


@pytest.mark.parametrize(
    ("cli", "env", "ini", "source"),
    [
        (RawSettings(seed="-1"), {}, RawSettings(), "--torchcheck-seed"),
        (RawSettings(), {"TORCHCHECK_DEVICES": "gpu"}, RawSettings(), "TORCHCHECK_DEVICES"),
        (
            RawSettings(),
            {},
            RawSettings(strict_state="maybe"),
            "ini option torchcheck_strict_state",
        ),
    ],
)
def test_invalid_settings_raise_errors_that_name_their_source(
    cli: RawSettings, env: dict[str, str], ini: RawSettings, source: str
) -> None:
    with pytest.raises(SettingError, match=source):
        resolve_settings(cli, env, ini)


def test_device_lists_are_canonically_ordered_without_duplicates() -> None:
    assert parse_devices(" CUDA, cpu,cuda ", "x") == ("cpu", "cuda")


def test_an_empty_device_list_is_an_error() -> None:
    with pytest.raises(SettingError, match="empty device list"):
        parse_devices(" , ", "--torchcheck-device")


def test_seeds_accept_decimal_and_hex_but_not_words() -> None:
    assert parse_seed("42", "x") == 42
    assert parse_seed("0x10", "x") == 16
    with pytest.raises(SettingError, match="non-negative integer"):
        parse_seed("forty", "x")


def test_booleans_accept_the_usual_words() -> None:
    assert parse_bool("On", "x") is True
    assert parse_bool("0", "x") is False


@pytest.mark.parametrize(
    ("cli_enable", "cli_settings", "ini_enable", "enabled"),
    [
        (False, [None, None, None], False, False),
        (True, [None, None, None], False, True),
        (False, [None, None, None], True, True),
        (False, [None, "3", None], False, True),
        (False, ["cuda", None, None], False, True),
    ],
)
def test_the_plugin_is_on_only_when_the_ini_file_or_the_command_line_names_it(
    cli_enable: bool, cli_settings: list[str | None], ini_enable: bool, enabled: bool
) -> None:
    assert plugin_enabled(cli_enable, cli_settings, ini_enable) is enabled


# --- devices ----------------------------------------------------------------------


def test_found_devices_list_cpu_first_then_present_accelerators() -> None:
    assert CPU_ONLY.kinds == ("cpu",)
    assert TWO_GPUS.kinds == ("cpu", "cuda")
    assert MAC.kinds == ("cpu", "mps")
    assert TWO_GPUS.describe() == "cpu, cuda x2"


def test_requesting_an_absent_device_names_it_and_what_was_found() -> None:
    with pytest.raises(DeviceUnavailableError) as raised:
        check_requested_available(("cpu", "cuda"), "--torchcheck-device", CPU_ONLY)
    message = str(raised.value)
    assert "--torchcheck-device=cpu,cuda asked for cuda" in message
    assert "found: cpu, no CUDA device" in message


def test_requesting_present_devices_is_fine() -> None:
    check_requested_available(("cuda",), "--torchcheck-device", TWO_GPUS)


@pytest.mark.parametrize(
    ("found", "requested", "expected"),
    [
        (CPU_ONLY, None, ("cpu",)),
        (TWO_GPUS, None, ("cpu", "cuda")),
        (MAC, None, ("cpu", "mps")),
        (TWO_GPUS, ("cuda",), ("cuda",)),
        (TWO_GPUS, ("cpu",), ("cpu",)),
    ],
)
def test_unmarked_tests_run_on_every_allowed_device_that_exists(
    found: FoundDevices, requested: tuple[str, ...] | None, expected: tuple[str, ...]
) -> None:
    plan = plan_test_devices(None, requested, "--torchcheck-device", found)
    assert plan.run == expected
    assert plan.skipped == ()


def test_a_marked_test_whose_device_is_absent_is_generated_skipped_with_a_reason() -> None:
    plan = plan_test_devices(("cuda",), None, None, CPU_ONLY)
    assert plan.run == ()
    [(device, reason)] = plan.skipped
    assert device == "cuda"
    assert "needs cuda" in reason and "found: cpu" in reason


def test_a_devices_marker_does_not_generate_the_devices_the_machine_lacks() -> None:
    plan = plan_test_devices(("cpu", "cuda"), None, None, CPU_ONLY)
    assert plan == (("cpu",), ())


def test_a_devices_marker_whose_devices_are_all_absent_is_generated_once_skipped() -> None:
    plan = plan_test_devices(("cuda", "mps"), None, None, CPU_ONLY)
    assert plan.run == ()
    [(device, reason)] = plan.skipped
    assert device == "cuda"
    assert reason.startswith("needs cuda or mps, which is not available (found: cpu")


def test_a_devices_marker_is_narrowed_by_the_requested_devices() -> None:
    plan = plan_test_devices(("cpu", "cuda"), ("cuda",), "--torchcheck-device", TWO_GPUS)
    assert plan.run == ("cuda",)


def test_a_devices_marker_excluded_by_the_request_is_skipped_naming_the_option() -> None:
    plan = plan_test_devices(("cpu",), ("cuda",), "TORCHCHECK_DEVICES", TWO_GPUS)
    assert plan.run == ()
    [(_, reason)] = plan.skipped
    assert "TORCHCHECK_DEVICES restricts this run to cuda" in reason


@pytest.mark.parametrize(
    ("needed", "requested", "found", "skips"),
    [
        ("cuda", None, CPU_ONLY, True),
        ("cuda", None, TWO_GPUS, False),
        ("cuda", ("cuda",), TWO_GPUS, False),
        ("cuda", ("cpu",), TWO_GPUS, True),
        ("mps", None, MAC, False),
        ("mps", None, TWO_GPUS, True),
    ],
)
def test_device_markers_skip_only_when_the_device_is_absent_or_excluded(
    needed: str, requested: tuple[str, ...] | None, found: FoundDevices, skips: bool
) -> None:
    reason = device_marker_skip_reason(needed, requested, "--torchcheck-device", found)
    assert (reason is not None) is skips


# --- seeds, replay, messages ------------------------------------------------------


def test_derived_seeds_are_stable_across_processes_and_python_versions() -> None:
    # A fixed value: a salted hash() or any change of recipe would break replays.
    assert derive_seed(0, "tests/test_model.py::test_forward[cpu]") == 3_404_166_123


def test_derived_seeds_depend_on_base_seed_and_node_id_and_fit_32_bits() -> None:
    seeds = {derive_seed(b, n) for b in (0, 1) for n in ("a.py::t", "a.py::u")}
    assert len(seeds) == 4
    assert all(0 <= s < 2**32 for s in seeds)


def test_replay_command_quotes_the_node_id_and_names_seed_and_device() -> None:
    command = replay_command("t.py::test_x[a b]", 7, "cuda")
    assert command == "pytest 't.py::test_x[a b]' --torchcheck-seed=7 --torchcheck-device=cuda"
    assert replay_command("t.py::t", 0, None) == "pytest t.py::t --torchcheck-seed=0"


def test_state_leak_message_lists_changes_and_hints_at_strict_mode_only_when_lenient() -> None:
    lenient = format_state_leak(["default dtype changed"], strict=False)
    strict = format_state_leak(["default dtype changed"], strict=True)
    assert "  - default dtype changed" in strict
    assert "--torchcheck-strict-state" in lenient
    assert "--torchcheck-strict-state" not in strict


# --- xdist GPU pinning ------------------------------------------------------------


@pytest.mark.parametrize(
    ("mask", "expected"),
    [
        ("0,1", ("0", "1")),
        (" 2 , 3 ", ("2", "3")),
        ("GPU-aaaa,GPU-bbbb", ("GPU-aaaa", "GPU-bbbb")),
        ("0,-1,2", ("0",)),
        ("-1", ()),
        ("", ()),
    ],
)
def test_visible_device_masks_are_parsed_as_cuda_reads_them(
    mask: str, expected: tuple[str, ...]
) -> None:
    assert parse_visible_devices(mask) == expected


def test_worker_ids_are_parsed_from_xdist_names() -> None:
    assert worker_index("gw12") == 12
    assert worker_index("master") is None


def test_each_worker_gets_its_own_gpu_when_counts_match() -> None:
    visible = ("3", "5", "6", "7")
    assert [worker_visible_devices(i, 4, visible) for i in range(4)] == [
        ("3",), ("5",), ("6",), ("7",),
    ]


def test_extra_gpus_are_split_into_contiguous_blocks() -> None:
    visible = ("0", "1", "2", "3", "4")
    slices = [worker_visible_devices(i, 2, visible) for i in range(2)]
    assert slices == [("0", "1", "2"), ("3", "4")]


def test_fewer_gpus_than_workers_are_shared_round_robin() -> None:
    slices = [worker_visible_devices(i, 3, ("GPU-a", "GPU-b")) for i in range(3)]
    assert slices == [("GPU-a",), ("GPU-b",), ("GPU-a",)]


@pytest.mark.parametrize(
    ("index", "count", "visible"),
    [(0, 1, ("0", "1")), (1, 4, ("0",)), (0, 4, ())],
)
def test_masks_are_left_alone_with_one_worker_or_at_most_one_gpu(
    index: int, count: int, visible: tuple[str, ...]
) -> None:
    assert worker_visible_devices(index, count, visible) is None


def test_pinning_only_happens_when_the_run_may_use_cuda() -> None:
    assert cuda_allowed(None)
    assert cuda_allowed(("cpu", "cuda"))
    assert not cuda_allowed(("cpu",))
