"""Zero-code model tests: ``[tool.torchcheck.models.<name>]`` in pyproject.toml becomes
pytest items, one per applicable check and device, with no test file.

Registered by ``torchcheck.plugin.hooks`` in a run that turned the plugin on. The
rootdir's pyproject.toml joins the collection when pytest runs without path arguments
(testpaths or the rootdir) or when ``--torchcheck-models`` forces it; a pyproject.toml
named on the command line is collected too. Collection reads only the TOML, so every
xdist worker generates the same items; the factory is imported when its items run.
Node ids: ``pyproject.toml::<model>::<check>[<device>]`` (no ``[...]`` for a check that
does not depend on the device). Loading this module imports neither torch nor libcst.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from torchcheck.checks._model_config import (
    RUNS_ON,
    ModelConfigError,
    ModelSpec,
    check_devices,
    models_table,
    parse_models,
    plan_checks,
    spec_ingredients,
)
from torchcheck.plugin.session import found_devices, run_settings
from torchcheck.plugin.support import SettingError, derive_seed, first_setting, parse_bool, plan_test_devices

__tracebackhide__ = True

MODELS_CLI = "--torchcheck-models"
NO_MODELS_CLI = "--no-torchcheck-models"
MODELS_ENV = "TORCHCHECK_MODELS"
MODELS_INI = "torchcheck_models"
EXPLAIN_CLI = "--torchcheck-models-explain"
EXPLAIN_ENV = "TORCHCHECK_MODELS_EXPLAIN"
EXPLAIN_INI = "torchcheck_models_explain"
PYPROJECT = "pyproject.toml"
MARKER_DOC = (
    "torchcheck_model: a zero-code model test generated from [tool.torchcheck.models] "
    "(`-m torchcheck_model` selects them all)."
)
BAD_TOML = "{path}: cannot read [tool.torchcheck.models]: {error}"
REPORT_SECTION = "torchcheck"
EXPLAIN_TITLE = "torchcheck models ({path}):"
EXPLAIN_GENERATED = "  {model}: {items}"
EXPLAIN_NOT_GENERATED = "    not generated: {check}: {reason}"
EXPLAIN_DECLARED = "    skipped as declared: {check}: {reason}"

_NO_DEVICE = {
    "other": "needs a non-cpu device (this run: {devices})",
    "each": "no device for this model in this run",
    "cpu": "runs on cpu, which this model or run leaves out (devices: {devices})",
    "meta": "runs with the cpu items, which this model or run leaves out (devices: {devices})",
}

_SETTINGS_KEY: pytest.StashKey[ModelsSettings] = pytest.StashKey()


class ModelsSettings(NamedTuple):
    """``models``: ``True`` forces the items, ``False`` turns them off, ``None`` adds them
    when pytest runs without path arguments."""

    models: bool | None = None
    explain: bool = False


# --- configure ----------------------------------------------------------------------


def configure(config: pytest.Config) -> None:
    """Resolve the settings (a bad value is a usage error), register the marker and this
    module's hooks, and add the rootdir's pyproject.toml to the collection when due."""
    try:
        settings = resolve_settings(config)
    except SettingError as error:
        raise pytest.UsageError(str(error)) from None
    config.stash[_SETTINGS_KEY] = settings
    config.addinivalue_line("markers", MARKER_DOC)
    module = sys.modules[__name__]
    if not config.pluginmanager.is_registered(module):
        config.pluginmanager.register(module, "torchcheck-models")
    pyproject = Path(str(config.rootpath)) / PYPROJECT
    wanted = settings.models is True or (settings.models is None and _no_path_arguments(config))
    if settings.models is not False and wanted and _has_models(pyproject) and str(pyproject) not in config.args:
        config.args.append(str(pyproject))


def resolve_settings(config: pytest.Config) -> ModelsSettings:
    cli = config.getoption("torchcheck_models", None)
    picked = first_setting([(os.environ.get(MODELS_ENV), MODELS_ENV), (_ini_text(config, MODELS_INI), f"ini option {MODELS_INI}")])
    models = cli if cli is not None else (parse_bool(*picked) if picked else None)
    explain_picked = first_setting(
        [(os.environ.get(EXPLAIN_ENV), EXPLAIN_ENV), (_ini_text(config, EXPLAIN_INI), f"ini option {EXPLAIN_INI}")]
    )
    explain = bool(config.getoption("torchcheck_models_explain", False)) or (
        parse_bool(*explain_picked) if explain_picked else False
    )
    return ModelsSettings(models, explain)


def _ini_text(config: pytest.Config, name: str) -> str | None:
    value = config.getini(name)
    if isinstance(value, bool):
        return str(value).lower()
    return str(value) if value else None


def _no_path_arguments(config: pytest.Config) -> bool:
    return config.args_source != pytest.Config.ArgsSource.ARGS


def _has_models(path: Path) -> bool:
    """Whether ``path`` has a ``[tool.torchcheck.models]`` table; an unreadable file is left
    to the collector, which reports the error."""
    if not path.is_file():
        return False
    try:
        return _read_models(path) is not None
    except ModelConfigError:
        return True


def _read_models(path: Path) -> Any:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    try:
        with path.open("rb") as handle:
            return models_table(tomllib.load(handle))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise ModelConfigError(BAD_TOML.format(path=path, error=error)) from None


def _settings(config: pytest.Config) -> ModelsSettings:
    return config.stash.get(_SETTINGS_KEY, ModelsSettings())


# --- header: --torchcheck-models-explain ---------------------------------------------


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    """What each model of the rootdir's table generates, and why the rest does not."""
    if not _settings(config).explain:
        return None
    path = Path(str(config.rootpath)) / PYPROJECT
    try:
        table = _read_models(path) if path.is_file() else None
        specs = parse_models(table) if table is not None else []
    except ModelConfigError as error:
        return [str(error)]
    if not specs:
        return [f"torchcheck models: no [tool.torchcheck.models] in {path}"]
    lines = [EXPLAIN_TITLE.format(path=path)]
    for spec in specs:
        lines += explain_model(spec, _run_devices(config, spec)[0])
    return lines


def explain_model(spec: ModelSpec, devices: tuple[str, ...]) -> list[str]:
    generated, skipped = plan_checks(spec.checks, spec_ingredients(spec))
    items = [_item_name(check, device) for check in generated for device in check_devices(check, devices)]
    lines = [EXPLAIN_GENERATED.format(model=spec.name, items=", ".join(items) or "nothing")]
    lines += [EXPLAIN_NOT_GENERATED.format(check=check, reason=reason) for check, reason in skipped.items()]
    for check in generated:
        if not check_devices(check, devices):
            reason = _NO_DEVICE[RUNS_ON[check]].format(devices=", ".join(devices) or "none")
            lines.append(EXPLAIN_NOT_GENERATED.format(check=check, reason=reason))
    lines += [EXPLAIN_DECLARED.format(check=check, reason=reason) for check, reason in spec.not_applicable.items()]
    return lines


def _item_name(check: str, device: str | None) -> str:
    return check if device is None else f"{check}[{device}]"


# --- collection ---------------------------------------------------------------------


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.name != PYPROJECT or _settings(parent.config).models is False:
        return None
    rootdir_file = Path(str(parent.config.rootpath)) / PYPROJECT
    if not (file_path == rootdir_file or parent.session.isinitpath(file_path)):
        return None
    if not _has_models(file_path):
        return None
    return ModelsFile.from_parent(parent, path=file_path)


class ModelsFile(pytest.File):
    """A pyproject.toml with a ``[tool.torchcheck.models]`` table."""

    def collect(self) -> list[ModelNode]:
        try:
            specs = parse_models(_read_models(self.path))
        except ModelConfigError as error:
            raise self.CollectError(f"{self.path}: {error}") from None
        return [ModelNode.from_parent(self, name=spec.name, spec=spec) for spec in specs]


class ModelNode(pytest.Collector):
    """One model: its items, and the recipe they share (built once, when the first runs)."""

    def __init__(self, *, spec: ModelSpec, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.spec = spec
        self._recipe: Any = None
        self._setup_error: BaseException | None = None
        self.line = _table_line(self.path, spec.name)

    def collect(self) -> list[ModelCheckItem]:
        spec = self.spec
        run, skipped_devices = _run_devices(self.config, spec)
        generated, _ = plan_checks(spec.checks, spec_ingredients(spec))
        items = []
        for check in generated:
            for device in check_devices(check, run):
                items.append(ModelCheckItem.from_parent(self, name=_item_name(check, device), check=check, device=device))
            for device, reason in skipped_devices:
                if device in check_devices(check, (device,)):
                    item = ModelCheckItem.from_parent(self, name=_item_name(check, device), check=check, device=device)
                    item.add_marker(pytest.mark.skip(reason=reason))
                    items.append(item)
        return items

    def recipe(self) -> Any:
        """Import and build the model once; a failure fails every item of the model."""
        if self._setup_error is not None:
            raise self._setup_error
        if self._recipe is None:
            from torchcheck.checks._model_recipe import recipe_from_spec

            project = str(self.path.parent)
            if project not in sys.path:
                sys.path.append(project)  # after installed packages: an installed project wins
            try:
                self._recipe = recipe_from_spec(self.spec, self.path.parent)
            except Exception as error:
                self._setup_error = error
                raise
        return self._recipe


def _table_line(path: Path, model: str) -> int:
    """The 0-based line of ``[tool.torchcheck.models.<model>]`` in ``path`` (0 if not found)."""
    header = re.compile(rf"^\s*\[\s*tool\.torchcheck\.models\.[\"']?{re.escape(model)}[\"']?\s*\]")
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return 0
    return next((number for number, line in enumerate(lines) if header.match(line)), 0)


def _run_devices(config: pytest.Config, spec: ModelSpec) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """The devices this model's items run on, and those generated only to be skipped."""
    settings = run_settings(config)
    plan = plan_test_devices(spec.devices, settings.devices, settings.devices_source, found_devices(config))
    return plan.run, plan.skipped


class ModelCheckItem(pytest.Item):
    """One check of one model on one device."""

    def __init__(self, *, check: str, device: str | None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.check = check
        self.device = device
        spec: ModelSpec = self.parent.spec  # type: ignore[union-attr]
        self.add_marker(pytest.mark.torchcheck_model)
        self.add_marker(getattr(pytest.mark, device or "cpu"))
        self.extra_keyword_matches.update({check, spec.name})
        if check in spec.not_applicable:
            self.add_marker(pytest.mark.skip(reason=spec.not_applicable[check]))
        if check in spec.xfail:
            self.add_marker(pytest.mark.xfail(reason=spec.xfail[check], strict=True))

    def runtest(self) -> None:
        from torchcheck.checks.battery import run_check
        from torchcheck.checks.errors import NotApplicable

        seed = derive_seed(run_settings(self.config).seed, self.nodeid)
        try:
            note = run_check(self.check, self.parent.recipe(), self.device or "cpu", seed=seed)  # type: ignore[union-attr]
        except NotApplicable as error:
            raise pytest.skip.Exception(str(error), _use_item_location=True) from None
        if note:
            self.add_report_section("call", REPORT_SECTION, note)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        """A finding or a configuration error shows its message, not torchcheck's frames."""
        from torchcheck.checks._model_recipe import ModelSetupError
        from torchcheck.checks.errors import CheckFailed

        if not isinstance(excinfo.value, (CheckFailed, ModelSetupError)):
            return super().repr_failure(excinfo, style=style)
        shown = self._repr_failure_py(excinfo, style="value")
        crash = getattr(shown, "reprcrash", None)
        lines = str(excinfo.value).strip().splitlines()
        if crash is not None and lines:
            crash.message = lines[0]  # the summary line shows the message, not the exception's dotted name
        return shown

    def _traceback_filter(self, excinfo: pytest.ExceptionInfo[BaseException]) -> Any:
        """The model's and the step's frames: torchcheck's and pytest's own are left out."""
        package = str(Path(__file__).parents[1])  # all of torchcheck, checks included
        return excinfo.traceback.filter(lambda entry: not str(entry.path).startswith(package)).filter(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        """Where skips and warnings point: the model's table in pyproject.toml."""
        return self.path, self.parent.line, f"{self.parent.name}::{self.name}"  # type: ignore[union-attr]

