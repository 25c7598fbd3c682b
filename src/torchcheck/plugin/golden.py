"""The ``golden_curve`` fixture's machinery: its settings, where golden files live, and the
run's summary of goldens compared, written and skipped.

Imported by ``torchcheck.plugin.hooks`` only when a test uses the fixture or a golden
setting needs checking; imports torch only when the fixture runs. The fixture is a thin
wrapper over :func:`torchcheck.run_training` and :func:`torchcheck.assert_golden_curve`.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from torchcheck.plugin.support import SettingError, derive_seed, first_setting

UPDATE_GOLDEN_CLI = "--torchcheck-update-golden"
UPDATE_GOLDEN_ENV = "TORCHCHECK_UPDATE_GOLDEN"
GOLDEN_MISSING_CLI = "--torchcheck-golden-missing"
GOLDEN_MISSING_ENV = "TORCHCHECK_GOLDEN_MISSING"
GOLDEN_MISSING_INI = "torchcheck_golden_missing"
GOLDEN_DIR_INI = "torchcheck_golden_dir"
GOLDEN_REQUIRED_INI = "torchcheck_golden_required"
MISSING_POLICIES = ("skip", "fail", "nearest")
UPDATE_MODES = ("all", "missing")
PROPERTY = "torchcheck_golden"
_ENV_OFF = frozenset({"", "0", "false", "no", "off"})
_ENV_ALL = frozenset({"1", "true", "yes", "on", "all"})
_UNSAFE_PATH_CHARACTERS = re.compile(r"[^A-Za-z0-9._\-\[\]=+,]+")

BAD_SETTING = "{source}: expected one of {choices}, got {value!r}"
BAD_POLICY_FILE = "torchcheck: cannot read [tool.torchcheck.golden] in {path}: {error}"
SUMMARY_TITLE = "torchcheck golden curves"
SUMMARY_COUNTS = "{compared} compared, {written} written, {unchanged} unchanged, {skipped} skipped for want of a golden"
SUMMARY_WRITTEN = "  written {path}: {changes}"
SUMMARY_STALE = "    now stale (recorded from other initial weights or batches; record them again): {keys}"
SUMMARY_NEAREST = "  compared {path} with the nearest key's golden, {key}"
GITHUB_TABLE_HEADER = "| golden file | what moved |\n|---|---|"


class GoldenSettings(NamedTuple):
    """The run's golden settings, resolved CLI > environment > ini."""

    update: str | None = None  # "all", "missing" or None
    missing: str | None = None  # None: skip, or fail where the run asked for the device
    missing_source: str | None = None
    directory: str | None = None
    required: tuple[str, ...] = ()


def resolve_golden_settings(
    cli_update: str | None,
    cli_missing: str | None,
    env: Mapping[str, str],
    ini_missing: str | None,
    ini_directory: str | None,
    ini_required: Sequence[str],
) -> GoldenSettings:
    """Parse the golden settings; :class:`SettingError` names the source of a bad value."""
    update = cli_update
    if update is None:
        text = env.get(UPDATE_GOLDEN_ENV, "").strip().lower()
        if text in _ENV_ALL:
            update = "all"
        elif text == "missing":
            update = "missing"
        elif text not in _ENV_OFF:
            raise SettingError(BAD_SETTING.format(source=UPDATE_GOLDEN_ENV, choices="all, missing, 1, 0", value=text))
    picked = first_setting(
        [(cli_missing, GOLDEN_MISSING_CLI), (env.get(GOLDEN_MISSING_ENV), GOLDEN_MISSING_ENV), (ini_missing, f"ini option {GOLDEN_MISSING_INI}")]
    )
    missing, source = (picked[0].lower(), picked[1]) if picked else (None, None)
    if missing is not None and missing not in MISSING_POLICIES:
        raise SettingError(BAD_SETTING.format(source=source, choices=", ".join(MISSING_POLICIES), value=missing))
    return GoldenSettings(
        update=update,
        missing=missing,
        missing_source=source,
        directory=ini_directory or None,
        required=tuple(pattern.strip() for pattern in ini_required if pattern.strip()),
    )


def missing_policy(settings: GoldenSettings, key_stem: str, device_requested: bool) -> str:
    """What a missing golden does for this key: a required key fails; an explicit setting
    wins; otherwise a run that asked for this test's device explicitly fails (a GPU job must
    not go green by skipping) and any other run skips."""
    import fnmatch

    if any(fnmatch.fnmatchcase(key_stem, pattern) for pattern in settings.required):
        return "fail"
    if settings.missing is not None:
        return settings.missing
    return "fail" if device_requested else "skip"


# --- where golden files live ------------------------------------------------------


def curve_id(item: pytest.Item) -> str:
    """The node id without the ``torch_device`` parameter: one curve, one key per device."""
    device_id = _device_id(item)
    if device_id is None:
        return item.nodeid
    base, _, params = item.nodeid.partition("[")
    kept = _without_device(params.rstrip("]"), device_id)
    return f"{base}[{kept}]" if kept else base


def _device_id(item: pytest.Item) -> str | None:
    callspec = getattr(item, "callspec", None)
    if callspec is None or "torch_device" not in callspec.params:
        return None
    return str(callspec.params["torch_device"])


def _without_device(params: str, device_id: str) -> str:
    parts = params.split("-")
    if device_id in parts:
        parts.remove(device_id)
    return "-".join(parts)


def golden_directory(item: pytest.Item, name: str, root: str | None, rootpath: Path) -> Path:
    """``<test file dir>/golden/<module stem>/<test name>[<non-device params>]/``; ini
    ``torchcheck_golden_dir`` (relative to the rootdir) replaces ``<test file dir>/golden``.
    A second curve of one test, ``name="eval"``, gets ``<test name>-eval/``."""
    path = Path(str(item.path))
    base = (rootpath / root) if root else path.parent / "golden"
    test = curve_id(item).rpartition("::")[2]
    if name != "curve":
        test = f"{test}-{name}"
    return base / path.stem / _safe(test)


def _safe(text: str) -> str:
    return _UNSAFE_PATH_CHARACTERS.sub("_", text).strip(".") or "_"


def policy_table(rootpath: Path) -> Mapping[str, Any]:
    """``tolerance`` of ``[tool.torchcheck.golden]`` in the rootdir's pyproject.toml."""
    path = rootpath / "pyproject.toml"
    if not path.is_file():
        return {}
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    try:
        with path.open("rb") as handle:
            data = tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise ValueError(BAD_POLICY_FILE.format(path=path, error=error)) from None
    golden = data.get("tool", {}).get("torchcheck", {}).get("golden", {})
    table = golden.get("tolerance", {}) if isinstance(golden, Mapping) else {}
    if not isinstance(table, Mapping):
        raise ValueError(BAD_POLICY_FILE.format(path=path, error="tolerance must be a table of key patterns"))
    return table


# --- the fixture ------------------------------------------------------------------


class GoldenCurveRunner:
    """What the ``golden_curve`` fixture returns: call it like :func:`torchcheck.run_training`."""

    def __init__(
        self,
        request: pytest.FixtureRequest,
        settings: GoldenSettings,
        base_seed: int,
        device_requested: Callable[[str], bool],
    ) -> None:
        self._request = request
        self._settings = settings
        self._base_seed = base_seed
        self._device_requested = device_requested

    def __call__(
        self,
        make_model: Any,
        make_optimizer: Callable[..., Any],
        step_fn: Callable[..., Any],
        batches: Any,
        *,
        name: str = "curve",
        steps: int | None = None,
        dtype: Any = None,
        tolerance: Any = None,
        metrics: Sequence[str] | None = None,
        seed_checkpoint: bool | str | os.PathLike[str] = True,
        scaler: Callable[[], Any] | None = None,
    ) -> Any:
        """Train on the test's ``torch_device`` (cpu without one) with the test's seed,
        compare with (or, with ``--torchcheck-update-golden``, record) the golden of this
        machine's key, and return the ``TrainingCurve``."""
        import dataclasses

        from torchcheck.checks._golden_compare import policy_tolerances
        from torchcheck.checks.golden import GoldenMissing, check_golden_curve, run_training

        item = self._request.node
        device = self._device()
        initial_state = seed_checkpoint if isinstance(seed_checkpoint, (str, os.PathLike)) else None
        seed = derive_seed(self._base_seed, curve_id(item) + ("" if name == "curve" else f"::{name}"))
        curve = run_training(
            make_model, make_optimizer, step_fn, batches, device=device, dtype=dtype, seed=seed,
            initial_state=initial_state, metrics=metrics, scaler=scaler, steps=steps,
        )
        curve = dataclasses.replace(curve, name=item.nodeid)
        rootpath = Path(str(self._request.config.rootpath))
        try:
            policy = policy_tolerances(policy_table(rootpath), curve.key, "[tool.torchcheck.golden] tolerance")
        except ValueError as error:
            pytest.fail(str(error), pytrace=False)
        directory = golden_directory(item, name, self._settings.directory, rootpath)
        missing = missing_policy(self._settings, curve.key.stem, self._device_requested(device.type))
        try:
            outcome = check_golden_curve(
                curve, directory, tolerance=tolerance, update=self._settings.update, missing=missing,
                policy=policy, compare_init=seed_checkpoint is not False,
            )
        except GoldenMissing as skipped:
            self._report("skipped", directory / curve.key.file_name)
            pytest.skip(str(skipped))
        self._report(outcome.status, outcome.path, outcome.changes, outcome.stale, outcome.compared_with)
        return curve

    def _device(self) -> Any:
        import torch

        if "torch_device" in self._request.fixturenames:
            return torch.device(self._request.getfixturevalue("torch_device"))
        return torch.device("cpu")

    def _report(self, status: str, path: Path, changes: str = "", stale: Sequence[str] = (), nearest: str | None = None) -> None:
        entry = {"status": status, "path": _shown_path(path, self._request.config), "changes": changes, "stale": list(stale)}
        if nearest:
            entry["nearest"] = nearest
        self._request.node.user_properties.append((PROPERTY, json.dumps(entry)))


def _shown_path(path: Path, config: pytest.Config) -> str:
    try:
        return str(path.resolve().relative_to(Path(str(config.rootpath)).resolve()))
    except ValueError:
        return str(path)


# --- the summary ------------------------------------------------------------------


class GoldenSummary:
    """Counts and written files, collected from test reports (so xdist workers count too)."""

    def __init__(self) -> None:
        self.entries: list[dict[str, Any]] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Reports of xdist workers arrive here too, with the properties the fixture added."""
        if report.when != "teardown":
            return
        for name, value in report.user_properties:
            if name == PROPERTY:
                self.entries.append(json.loads(value))

    def count(self, status: str) -> int:
        return sum(1 for entry in self.entries if entry["status"] == status)

    def lines(self) -> list[str]:
        if not self.entries:
            return []
        counts = {status: self.count(status) for status in ("compared", "written", "unchanged", "skipped")}
        lines = [SUMMARY_COUNTS.format(**counts)]
        for entry in self.entries:
            if entry["status"] == "written":
                lines.append(SUMMARY_WRITTEN.format(path=entry["path"], changes=entry["changes"]))
                if entry["stale"]:
                    lines.append(SUMMARY_STALE.format(keys=", ".join(entry["stale"])))
            elif entry.get("nearest"):
                lines.append(SUMMARY_NEAREST.format(path=entry["path"], key=entry["nearest"]))
        return lines

    def markdown(self) -> str:
        written = [entry for entry in self.entries if entry["status"] == "written"]
        text = f"### {SUMMARY_TITLE}\n\n{self.lines()[0]}\n"
        if written:
            rows = "\n".join(f"| `{entry['path']}` | {entry['changes']} |" for entry in written)
            text += f"\n{GITHUB_TABLE_HEADER}\n{rows}\n"
        return text

    def write_github_summary(self, env: Mapping[str, str]) -> None:
        target = env.get("GITHUB_STEP_SUMMARY")
        if not target or not self.entries:
            return
        with open(target, "a", encoding="utf-8") as handle:
            handle.write(self.markdown() + "\n")
