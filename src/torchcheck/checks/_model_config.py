"""``[tool.torchcheck.models.<name>]``: the zero-code model tests' configuration, read and
checked, and which checks apply to each model.

Pure: imports neither torch nor pytest, so the plugin can read the table at collection
(same items on every xdist worker) and ``tc.check_model`` can share the check names and
the selection language. Import paths are only parsed here, never imported: a factory is
imported when its items run. Every :class:`ModelConfigError` names the table and the key.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

TABLE = "[tool.torchcheck.models.{name}]"


class ModelConfigError(ValueError):
    """A ``[tool.torchcheck.models.*]`` table (or a ``check_model`` argument) is invalid."""


class CheckInfo(NamedTuple):
    """One check of the battery: whether ``"default"`` selects it and where it runs
    (``each``: every device; ``cpu``; ``meta``; ``other``: one item per non-cpu device)."""

    name: str
    default: bool
    runs_on: str


CHECKS: tuple[CheckInfo, ...] = (
    CheckInfo("forward", True, "each"),
    CheckInfo("inference_contract", True, "each"),
    CheckInfo("gradients_flow", True, "each"),
    CheckInfo("batch_independent", True, "each"),
    CheckInfo("reproducible", True, "each"),
    CheckInfo("checkpoint_roundtrip", True, "cpu"),
    CheckInfo("meta_shapes", True, "meta"),
    CheckInfo("devices_agree", True, "other"),
    CheckInfo("optimizer_covers", True, "cpu"),
    CheckInfo("resume_equivalent", True, "each"),
    CheckInfo("no_graph_leak", True, "each"),
    CheckInfo("accumulation_equivalent", True, "each"),
    CheckInfo("amp_step", True, "each"),
    CheckInfo("compile_parity", True, "each"),
    CheckInfo("data_parallel_equivalent", False, "cpu"),
    CheckInfo("gradcheck", False, "cpu"),
)
CHECK_NAMES: tuple[str, ...] = tuple(check.name for check in CHECKS)
RUNS_ON: dict[str, str] = {check.name: check.runs_on for check in CHECKS}
DEFAULT_CHECKS: tuple[str, ...] = tuple(check.name for check in CHECKS if check.default)
NOT_YET_ZERO_CODE = {"golden_curve": "the golden_curve fixture in a test"}

KEYS = (
    "factory", "hf", "inputs", "loss", "step", "optimizer", "optimizer_args", "checks", "devices",
    "dtype", "allow_zero", "tolerance", "not_applicable", "xfail", "golden", "compile", "distributed",
)
HF_KEYS = ("id", "task", "shrink", "config", "config_file")
HF_TASKS = ("base", "causal-lm", "masked-lm", "seq2seq-lm", "sequence-classification", "token-classification")
DEVICE_NAMES = ("cpu", "cuda", "mps")
DTYPES = ("float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool")
FLOAT_DTYPES = ("float32", "float64", "float16", "bfloat16")
COMPILE_KEYS = ("backend", "mode", "dynamic", "options", "precision", "max_graph_breaks", "max_recompiles", "compile")
DISTRIBUTED_KEYS = ("world_size", "strategy")
TOLERANCE_KEYS = ("rtol", "atol")
TOLERANT_CHECKS = ("reproducible", "devices_agree", "accumulation_equivalent", "amp_step", "compile_parity", "data_parallel_equivalent")

_IMPORT_PATH = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")
_DOTTED_PATH = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)+$")
_TENSOR_SPEC = re.compile(
    r"^\s*(?P<kind>[a-z0-9]+)\s*\[(?P<dims>[^\]]*)\]\s*(?:<\s*(?P<high>\d+|vocab)\s*)?$"
)

UNKNOWN_KEY = "{table}: unknown key {key!r} (known keys: {known})"
MISSING_SOURCE = "{table}: needs `factory = \"module:attr\"` or `hf = \"<model id>\"`"
BOTH_SOURCES = "{table}: give `factory` or `hf`, not both"
BAD_IMPORT_PATH = "{table}: {key} must be an import path \"module:attr\" (or \"package.module.Attr\"), got {value!r}"
BAD_TYPE = "{table}: {key} must be {expected}, got {value!r}"
UNKNOWN_CHECK = "{source}: unknown check {name!r} (checks: {known}; \"default\" selects the default ones)"
NOT_ZERO_CODE = "{source}: {name} is not available as a zero-code item yet; use {instead}"
BAD_INPUT_SPEC = (
    "{table}: inputs.{name} = {value!r} is not a tensor spec; write DTYPE[dims] (e.g. \"float32[4,3,32,32]\", "
    "\"int64[2,16] < 1000\", \"int64[2,16] < vocab\"), mask[B,T], ones[...] or zeros[...]"
)
INT_NEEDS_BOUND = "{table}: inputs.{name} = {value!r} draws integers: give their range, e.g. \"{kind}[{dims}] < 100\""
VOCAB_WITHOUT_HF = "{table}: inputs.{name} uses `< vocab`, which only an `hf` model's config defines"
BAD_SHAPE = "{where} must be a list of positive integers (a shape), got {value!r}"


class TensorSpec(NamedTuple):
    """One generated input: ``kind`` is a dtype name, ``mask``, ``ones`` or ``zeros``;
    ``high`` bounds random integers (an int, or ``"vocab"``)."""

    kind: str
    shape: tuple[int, ...]
    high: int | str | None = None


class ModelSpec(NamedTuple):
    """One ``[tool.torchcheck.models.<name>]`` table, checked but not imported."""

    name: str
    factory: str | None = None
    hf: Mapping[str, Any] | None = None
    inputs: str | tuple[TensorSpec, ...] | Mapping[str, TensorSpec] | None = None
    loss: str | None = None
    step: str | None = None
    optimizer: str | None = None
    optimizer_args: Mapping[str, Any] = {}
    checks: tuple[str, ...] = DEFAULT_CHECKS
    devices: tuple[str, ...] | None = None
    dtype: str | None = None
    allow_zero: tuple[str, ...] = ()
    tolerance: Mapping[str, Mapping[str, float]] = {}
    not_applicable: Mapping[str, str] = {}
    xfail: Mapping[str, str] = {}
    golden: Mapping[str, Any] = {}
    compile: Mapping[str, Any] = {}
    distributed: Mapping[str, Any] = {}

    @property
    def table(self) -> str:
        return TABLE.format(name=self.name)


# --- reading ------------------------------------------------------------------------


def models_table(data: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """``[tool.torchcheck.models]`` of a parsed pyproject.toml, or ``None``."""
    tool = data.get("tool")
    torchcheck = tool.get("torchcheck") if isinstance(tool, Mapping) else None
    models = torchcheck.get("models") if isinstance(torchcheck, Mapping) else None
    return models


def parse_models(models: Any) -> list[ModelSpec]:
    """Every model of ``[tool.torchcheck.models]``, in file order."""
    if not isinstance(models, Mapping):
        raise ModelConfigError(f"[tool.torchcheck.models] must be a table of models, got {models!r}")
    return [parse_model(name, table) for name, table in models.items()]


def parse_model(name: str, table: Any) -> ModelSpec:
    where = TABLE.format(name=name)
    if not isinstance(table, Mapping):
        raise ModelConfigError(BAD_TYPE.format(table=where, key="the table", expected="a table", value=table))
    for key in table:
        if key not in KEYS:
            raise ModelConfigError(UNKNOWN_KEY.format(table=where, key=key, known=", ".join(KEYS)))
    if "factory" not in table and "hf" not in table:
        raise ModelConfigError(MISSING_SOURCE.format(table=where))
    if "factory" in table and "hf" in table:
        raise ModelConfigError(BOTH_SOURCES.format(table=where))
    hf = _hf(table["hf"], where) if "hf" in table else None
    return ModelSpec(
        name=name,
        factory=_import_path(table, "factory", where),
        hf=hf,
        inputs=_inputs(table.get("inputs"), where, hf is not None),
        loss=_import_path(table, "loss", where),
        step=_import_path(table, "step", where),
        optimizer=_import_path(table, "optimizer", where),
        optimizer_args=_table(table, "optimizer_args", where),
        checks=select_checks(_strings(table, "checks", where) or ("default",), f"{where} checks"),
        devices=_devices(table, where),
        dtype=_choice(table, "dtype", FLOAT_DTYPES, where),
        allow_zero=_strings(table, "allow_zero", where) or (),
        tolerance=_tolerance(table, where),
        not_applicable=_reasons(table, "not_applicable", where),
        xfail=_reasons(table, "xfail", where),
        golden=_table(table, "golden", where),
        compile=_known_table(table, "compile", COMPILE_KEYS, where),
        distributed=_known_table(table, "distributed", DISTRIBUTED_KEYS, where),
    )


def select_checks(selection: Sequence[str], source: str) -> tuple[str, ...]:
    """ruff-style selection: ``"default"``, check names, ``"-name"`` to remove one;
    returned in the battery's order."""
    chosen: set[str] = set()
    for entry in selection:
        remove = entry.startswith("-")
        name = entry[1:] if remove else entry
        names = DEFAULT_CHECKS if name == "default" else (_check_name(name, source),)
        chosen = chosen - set(names) if remove else chosen | set(names)
    return tuple(name for name in CHECK_NAMES if name in chosen)


def _check_name(name: str, source: str) -> str:
    if name in NOT_YET_ZERO_CODE:
        raise ModelConfigError(NOT_ZERO_CODE.format(source=source, name=name, instead=NOT_YET_ZERO_CODE[name]))
    if name not in CHECK_NAMES:
        raise ModelConfigError(UNKNOWN_CHECK.format(source=source, name=name, known=", ".join(CHECK_NAMES)))
    return name


def _import_path(table: Mapping[str, Any], key: str, where: str) -> str | None:
    value = table.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not (_IMPORT_PATH.match(value) or _DOTTED_PATH.match(value)):
        raise ModelConfigError(BAD_IMPORT_PATH.format(table=where, key=key, value=value))
    return value


def _hf(value: Any, where: str) -> Mapping[str, Any]:
    hf = {"id": value} if isinstance(value, str) else value
    if not isinstance(hf, Mapping):
        raise ModelConfigError(BAD_TYPE.format(table=where, key="hf", expected="a model id or a table", value=value))
    for key in hf:
        if key not in HF_KEYS:
            raise ModelConfigError(UNKNOWN_KEY.format(table=where, key=f"hf.{key}", known=", ".join(HF_KEYS)))
    if "id" not in hf and "config_file" not in hf:
        raise ModelConfigError(f"{where}: hf needs `id` (a model id on the Hub) or `config_file` (a config.json)")
    if hf.get("task", "base") not in HF_TASKS:
        raise ModelConfigError(BAD_TYPE.format(table=where, key="hf.task", expected=f"one of {', '.join(HF_TASKS)}", value=hf["task"]))
    if not isinstance(hf.get("config", {}), Mapping):
        raise ModelConfigError(BAD_TYPE.format(table=where, key="hf.config", expected="a table of overrides", value=hf["config"]))
    return dict(hf)


def _inputs(value: Any, where: str, hf: bool) -> str | tuple[TensorSpec, ...] | Mapping[str, TensorSpec] | None:
    if value is None:
        return None
    if isinstance(value, str):
        if not _IMPORT_PATH.match(value) and not _DOTTED_PATH.match(value):
            raise ModelConfigError(BAD_IMPORT_PATH.format(table=where, key="inputs", value=value))
        return value
    if isinstance(value, list):
        return tuple(TensorSpec("float32", _shape(shape, f"{where}: inputs[{i}]")) for i, shape in enumerate(value))
    if isinstance(value, Mapping):
        return {name: parse_tensor_spec(spec, name, where, hf) for name, spec in value.items()}
    raise ModelConfigError(
        BAD_TYPE.format(table=where, key="inputs", expected="\"module:attr\", a list of shapes or a table of specs", value=value)
    )


def parse_tensor_spec(value: Any, name: str, where: str, hf: bool) -> TensorSpec:
    match = _TENSOR_SPEC.match(value) if isinstance(value, str) else None
    if match is None or match["kind"] not in (*DTYPES, "mask", "ones", "zeros"):
        raise ModelConfigError(BAD_INPUT_SPEC.format(table=where, name=name, value=value))
    dims = [part.strip() for part in match["dims"].split(",")]
    if not all(part.isdigit() and int(part) > 0 for part in dims):
        raise ModelConfigError(BAD_INPUT_SPEC.format(table=where, name=name, value=value))
    kind, high = match["kind"], match["high"]
    integer = kind not in (*FLOAT_DTYPES, "mask", "ones", "zeros", "bool")
    if integer and high is None:
        raise ModelConfigError(INT_NEEDS_BOUND.format(table=where, name=name, value=value, kind=kind, dims=match["dims"]))
    if high == "vocab" and not hf:
        raise ModelConfigError(VOCAB_WITHOUT_HF.format(table=where, name=name))
    bound = int(high) if high is not None and high != "vocab" else high
    return TensorSpec(kind, tuple(int(part) for part in dims), bound)


def _shape(value: Any, where: str) -> tuple[int, ...]:
    if not isinstance(value, list) or not value or not all(
        isinstance(d, int) and not isinstance(d, bool) and d > 0 for d in value
    ):
        raise ModelConfigError(BAD_SHAPE.format(where=where, value=value))
    return tuple(value)


def _strings(table: Mapping[str, Any], key: str, where: str) -> tuple[str, ...] | None:
    value = table.get(key)
    if value is None:
        return None
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ModelConfigError(BAD_TYPE.format(table=where, key=key, expected="a list of strings", value=value))
    return tuple(value)


def _devices(table: Mapping[str, Any], where: str) -> tuple[str, ...] | None:
    names = _strings(table, "devices", where)
    if names is None:
        return None
    for name in names:
        if name not in DEVICE_NAMES:
            raise ModelConfigError(BAD_TYPE.format(table=where, key="devices", expected=f"a list of {', '.join(DEVICE_NAMES)}", value=list(names)))
    return tuple(kind for kind in DEVICE_NAMES if kind in names)


def _choice(table: Mapping[str, Any], key: str, choices: Sequence[str], where: str) -> str | None:
    value = table.get(key)
    if value is not None and value not in choices:
        raise ModelConfigError(BAD_TYPE.format(table=where, key=key, expected=f"one of {', '.join(choices)}", value=value))
    return value


def _table(table: Mapping[str, Any], key: str, where: str) -> Mapping[str, Any]:
    value = table.get(key, {})
    if not isinstance(value, Mapping):
        raise ModelConfigError(BAD_TYPE.format(table=where, key=key, expected="a table", value=value))
    return dict(value)


def _known_table(table: Mapping[str, Any], key: str, known: Sequence[str], where: str) -> Mapping[str, Any]:
    value = _table(table, key, where)
    for name in value:
        if name not in known:
            raise ModelConfigError(UNKNOWN_KEY.format(table=where, key=f"{key}.{name}", known=", ".join(known)))
    return value


def _reasons(table: Mapping[str, Any], key: str, where: str) -> Mapping[str, str]:
    value = _table(table, key, where)
    for check, reason in value.items():
        _check_name(check, f"{where} {key}")
        if not isinstance(reason, str) or not reason.strip():
            raise ModelConfigError(BAD_TYPE.format(table=where, key=f"{key}.{check}", expected="a reason (a string)", value=reason))
    return value


def _tolerance(table: Mapping[str, Any], where: str) -> Mapping[str, Mapping[str, float]]:
    value = _table(table, "tolerance", where)
    for check, bounds in value.items():
        if _check_name(check, f"{where} tolerance") not in TOLERANT_CHECKS:
            raise ModelConfigError(f"{where}: tolerance.{check}: {check} takes no tolerance (those that do: {', '.join(TOLERANT_CHECKS)})")
        if not isinstance(bounds, Mapping) or not all(
            k in TOLERANCE_KEYS and isinstance(v, (int, float)) and not isinstance(v, bool) for k, v in bounds.items()
        ):
            raise ModelConfigError(BAD_TYPE.format(table=where, key=f"tolerance.{check}", expected="{ rtol = ..., atol = ... }", value=bounds))
    return value


# --- applicability ------------------------------------------------------------------


class Ingredients(NamedTuple):
    """What a model declares, as far as deciding which checks apply needs to know."""

    has_factory: bool
    has_inputs: bool
    batch_size: int | None  # None: unknown until the inputs are made
    has_loss: bool
    has_step: bool
    has_optimizer: bool


def spec_ingredients(spec: ModelSpec) -> Ingredients:
    return Ingredients(
        has_factory=True,
        has_inputs=spec.inputs is not None or spec.hf is not None,
        batch_size=spec_batch_size(spec),
        has_loss=spec.loss is not None or hf_computes_loss(spec),
        has_step=spec.step is not None,
        has_optimizer=spec.optimizer is not None,
    )


def hf_computes_loss(spec: ModelSpec) -> bool:
    """Whether an ``hf`` model's batch has ``labels`` (then ``outputs.loss`` is the loss):
    the default batch of a causal LM, or declared inputs that name them."""
    if spec.hf is None:
        return False
    if spec.inputs is None:
        return spec.hf.get("task") == "causal-lm"
    return isinstance(spec.inputs, Mapping) and "labels" in spec.inputs


def spec_batch_size(spec: ModelSpec) -> int | None:
    if spec.inputs is None:
        return 2 if spec.hf is not None else None  # the default HF batch
    if isinstance(spec.inputs, str):
        return None
    specs = list(spec.inputs.values()) if isinstance(spec.inputs, Mapping) else list(spec.inputs)
    return specs[0].shape[0] if specs else None


def why_not_applicable(check: str, have: Ingredients) -> str | None:
    """Why ``check`` cannot be generated from what the model declares; ``None`` if it can."""
    trains = have.has_step or (have.has_loss and have.has_optimizer)
    needs_inputs = check not in ("optimizer_covers", "checkpoint_roundtrip")
    if needs_inputs and not have.has_inputs:
        return "no inputs"
    if check == "meta_shapes" and not have.has_factory:
        return "needs a factory (a model instance cannot be built on meta)"
    if check == "batch_independent" and have.batch_size is not None and have.batch_size < 2:
        return f"the batch has {have.batch_size} sample; needs at least 2"
    if check == "optimizer_covers" and not have.has_optimizer:
        return "no optimizer"
    if check in ("resume_equivalent", "no_graph_leak", "compile_parity", "data_parallel_equivalent") and not trains:
        return "no step, and no loss + optimizer"
    if check in ("accumulation_equivalent", "amp_step") and not (have.has_loss and have.has_optimizer):
        why = "no loss + optimizer" + (" (a step function makes whole optimizer steps, which cannot be split)" if have.has_step else "")
        return why
    if check == "accumulation_equivalent" and have.batch_size is not None and have.batch_size % 2:
        return f"the batch of {have.batch_size} cannot be split in 2"
    return None


def plan_checks(checks: Sequence[str], have: Ingredients) -> tuple[list[str], dict[str, str]]:
    """The selected checks that apply, and why each other selected check does not."""
    generated: list[str] = []
    skipped: dict[str, str] = {}
    for check in checks:
        reason = why_not_applicable(check, have)
        if reason is None:
            generated.append(check)
        else:
            skipped[check] = reason
    return generated, skipped


def check_devices(check: str, run_devices: Sequence[str]) -> list[str | None]:
    """The devices one check gets items for (``None``: a single item without ``[...]``)."""
    runs_on = RUNS_ON[check]
    if runs_on == "each":
        return list(run_devices)
    if runs_on == "other":
        return [d for d in run_devices if d != "cpu"]
    return [None] if "cpu" in run_devices else []
