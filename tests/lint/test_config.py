"""``[tool.torchcheck]`` parsing: new keys, and every malformed file is a ConfigError naming it."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from torchcheck.config import (
    DEFAULT_MAX_FILE_SIZE,
    Config,
    ConfigError,
    discover,
    load_file,
    parse_size,
)


def skip_unless_chmod_stops_reads(directory: Path) -> None:
    """Root (with CAP_DAC_OVERRIDE) reads through chmod 000; only a real refusal tests anything."""
    probe = directory / "probe"
    probe.mkdir()
    probe.chmod(0)
    try:
        refused = not os.access(probe, os.R_OK)
    finally:
        probe.chmod(stat.S_IRWXU)
        probe.rmdir()
    if not refused:
        pytest.skip("chmod 000 does not stop this user from reading")


def pyproject(directory: Path, body: str | bytes, name: str = "pyproject.toml") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    if isinstance(body, str):
        path.write_text(body, encoding="utf-8")
    else:
        path.write_bytes(body)
    return path


def test_force_exclude_defaults_to_false_and_reads_a_boolean(tmp_path: Path) -> None:
    assert Config(root=tmp_path).force_exclude is False
    pyproject(tmp_path, "[tool.torchcheck]\nforce-exclude = true\n")
    assert discover(tmp_path).force_exclude is True


def test_force_exclude_must_be_a_boolean(tmp_path: Path) -> None:
    source = pyproject(tmp_path, '[tool.torchcheck]\nforce-exclude = "yes"\n')
    with pytest.raises(ConfigError, match="force-exclude must be true or false, got 'yes'") as caught:
        discover(tmp_path)
    assert str(caught.value).startswith(f"{source}: ")


@pytest.mark.parametrize(
    ("value", "size"),
    [('"10MB"', 10 * 1024**2), ('"512KB"', 512 * 1024), ('"1 GiB"', 1024**3), ('"300b"', 300), ("4096", 4096)],
)
def test_max_file_size_accepts_sizes_with_units_and_plain_bytes(tmp_path: Path, value: str, size: int) -> None:
    pyproject(tmp_path, f"[tool.torchcheck]\nmax-file-size = {value}\n")
    assert discover(tmp_path).max_file_size == size


def test_max_file_size_defaults_to_ten_megabytes(tmp_path: Path) -> None:
    pyproject(tmp_path, "[tool.torchcheck]\n")
    assert discover(tmp_path).max_file_size == DEFAULT_MAX_FILE_SIZE == 10 * 1024 * 1024


@pytest.mark.parametrize("value", ['"big"', '"10 parsecs"', "0", "-5", "true", "1.5", '"MB"', "[10]"])
def test_a_malformed_max_file_size_is_a_config_error_showing_the_accepted_forms(tmp_path: Path, value: str) -> None:
    source = pyproject(tmp_path, f"[tool.torchcheck]\nmax-file-size = {value}\n")
    with pytest.raises(ConfigError) as caught:
        discover(tmp_path)
    message = str(caught.value)
    assert message.startswith(f"{source}: [tool.torchcheck] max-file-size must be a positive size like \"10MB\"")
    assert message.endswith(f"got {parse_toml_value(value)!r}")


def parse_toml_value(value: str) -> object:
    import tomllib

    return tomllib.loads(f"v = {value}")["v"]


def test_parse_size_names_where_the_value_came_from() -> None:
    with pytest.raises(ConfigError, match=r"^--max-file-size: "):
        parse_size("lots", "--max-file-size")


def test_a_config_file_without_a_torchcheck_table_is_an_error(tmp_path: Path) -> None:
    source = pyproject(tmp_path, "[tool.black]\nline-length = 100\n", name="custom.toml")
    with pytest.raises(ConfigError) as caught:
        load_file(source)
    assert str(caught.value) == f"{source}: no [tool.torchcheck] table (a --config file must have one)"


def test_a_config_file_with_an_empty_torchcheck_table_is_fine(tmp_path: Path) -> None:
    source = pyproject(tmp_path, "[tool.torchcheck]\n", name="custom.toml")
    assert load_file(source).source == source


def test_a_non_utf8_pyproject_is_a_config_error_naming_the_file(tmp_path: Path) -> None:
    source = pyproject(tmp_path, "# caf\xe9\n[tool.torchcheck]\n".encode("latin-1"))
    for read in (discover, load_file):
        with pytest.raises(ConfigError) as caught:
            read(tmp_path if read is discover else source)
        assert str(caught.value).startswith(f"{source}: cannot read: not valid UTF-8")


@pytest.mark.parametrize(
    "body", ["[tool]\ntorchcheck = 3\n", '[tool]\ntorchcheck = ["TCK1"]\n', 'tool.torchcheck = "on"\n']
)
def test_a_torchcheck_key_that_is_not_a_table_is_an_error(tmp_path: Path, body: str) -> None:
    source = pyproject(tmp_path, body)
    with pytest.raises(ConfigError, match=r"\[tool.torchcheck\] must be a table of settings") as caught:
        discover(tmp_path)
    assert str(caught.value).startswith(f"{source}: ")


def test_a_pyproject_without_the_table_is_skipped_on_the_way_up(tmp_path: Path) -> None:
    pyproject(tmp_path, '[tool.torchcheck]\nignore = ["TCK201"]\n')
    pyproject(tmp_path / "pkg", "[tool]\nblack = {}\n")
    assert discover(tmp_path / "pkg").ignore == ("TCK201",)


def test_existing_error_messages_keep_their_source_prefix(tmp_path: Path) -> None:
    source = pyproject(tmp_path, '[tool.torchcheck]\nselect = "TCK1"\n')
    with pytest.raises(ConfigError) as caught:
        discover(tmp_path)
    assert str(caught.value) == f"{source}: [tool.torchcheck] select must be a list of strings, got 'TCK1'"


def test_a_missing_config_file_is_still_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="config file not found"):
        load_file(tmp_path / "nope.toml")


def test_a_config_file_that_is_a_symlink_loop_is_an_error_not_a_traceback(tmp_path: Path) -> None:
    (tmp_path / "loop.toml").symlink_to(tmp_path / "loop.toml")
    with pytest.raises(ConfigError, match="config file not found"):
        load_file(tmp_path / "loop.toml")


def test_discovery_from_a_symlink_loop_falls_back_to_the_directory_holding_it(tmp_path: Path) -> None:
    pyproject(tmp_path, '[tool.torchcheck]\nignore = ["TCK201"]\n')
    (tmp_path / "loop.py").symlink_to(tmp_path / "loop.py")
    assert discover(tmp_path / "loop.py").ignore == ("TCK201",)


def test_a_directory_that_cannot_be_probed_is_skipped_on_the_way_up(tmp_path: Path) -> None:
    # As root chmod 000 does not stop stat(); a name past PATH_MAX fails it for everyone.
    pyproject(tmp_path, '[tool.torchcheck]\nignore = ["TCK201"]\n')
    limit = os.pathconf(tmp_path, "PC_PATH_MAX")
    directory = tmp_path
    while len(str(directory)) < limit - 260:
        directory = directory / ("d" * 200)
    directory = directory / ("e" * (limit - len(str(directory)) - 8))
    os.makedirs(directory)
    with pytest.raises(OSError):
        (directory / "pyproject.toml").is_file()
    assert discover(directory).ignore == ("TCK201",)


def test_an_unreadable_directory_on_the_way_up_is_skipped(tmp_path: Path) -> None:
    skip_unless_chmod_stops_reads(tmp_path)
    pyproject(tmp_path, '[tool.torchcheck]\nignore = ["TCK201"]\n')
    locked = tmp_path / "locked"
    (locked / "inner").mkdir(parents=True)
    locked.chmod(0)
    try:
        assert discover(locked / "inner").ignore == ("TCK201",)
    finally:
        locked.chmod(stat.S_IRWXU)


# ----------------------------------------------------------------------------- inline --config overrides


def test_an_inline_override_is_parsed_as_toml_and_checked_like_a_file_setting() -> None:
    from torchcheck.config import parse_override

    assert parse_override("ignore = ['TCK105']") == {"ignore": ["TCK105"]}
    assert parse_override('per-file-ignores = { "tests/*" = ["TCK201"] }') == {"per-file-ignores": {"tests/*": ["TCK201"]}}
    with pytest.raises(ConfigError, match=r"--config 'max-file-size = \"big\"'.*max-file-size"):
        parse_override('max-file-size = "big"')
    with pytest.raises(ConfigError, match="KEY = VALUE"):
        parse_override("ignore = [TCK105")


def test_an_inline_override_nested_too_deeply_is_a_config_error() -> None:
    from torchcheck.config import parse_override

    with pytest.raises(ConfigError, match="nested too deeply"):
        parse_override("ignore = " + "[" * 100_000 + "]" * 100_000)


def test_config_arguments_split_into_one_file_and_overrides(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from torchcheck.config import split_config_arguments

    monkeypatch.chdir(tmp_path)
    pyproject(tmp_path, "[tool.torchcheck]\n", name="a=b.toml")  # a file wins even with `=` in its name
    assert split_config_arguments(["a=b.toml", "ignore = []"]) == (Path("a=b.toml"), ("ignore = []",))
    assert split_config_arguments(["missing.toml"]) == (Path("missing.toml"), ())  # reported missing when loaded
    assert split_config_arguments([]) == (None, ())


def test_overrides_replace_the_same_keys_of_the_file_and_later_overrides_win(tmp_path: Path) -> None:
    from torchcheck.config import with_overrides

    config = load_file(pyproject(tmp_path, '[tool.torchcheck]\nignore = ["TCK101"]\nselect = ["TCK1"]\n'))
    overridden = with_overrides(config, ["ignore = ['TCK102']", "ignore = ['TCK103']", "force-exclude = true"])
    assert overridden.ignore == ("TCK103",) and overridden.select == ("TCK1",) and overridden.force_exclude
    assert overridden.source == config.source and with_overrides(config, []) is config
