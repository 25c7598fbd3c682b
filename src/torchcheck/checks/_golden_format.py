"""Golden curve files: their key, their JSON format, reading and writing them.

Imports neither torch nor pytest: ``torchcheck golden review`` and ``list`` read golden files
through this module on machines without torch.

A golden file is valid JSON written one step per line, so that ``git diff`` shows which steps
moved. Floats are written as their shortest round-trip ``repr`` (float32 values survive
exactly); NaN and infinities, which JSON lacks, as the strings ``"nan"``, ``"inf"``, ``"-inf"``.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

__all__ = [
    "FORMAT_VERSION",
    "GoldenFileError",
    "GoldenKey",
    "GoldenRecord",
    "decode_value",
    "encode_value",
    "read_golden",
    "render_golden",
    "parse_golden",
    "slug",
    "write_golden",
]

FORMAT_VERSION = 1
FORMAT_MARKER = "torchcheck_golden"
_NON_FINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}
_CONFLICT_MARKER = re.compile(r"^(<{7}|>{7}|={7})( |$)", re.MULTILINE)

_NOT_GOLDEN = "{path} is not a valid golden file: {problem}. Fix or delete it, then record it again."
_CONFLICT = "it holds unresolved merge conflict markers (<<<<<<< ... >>>>>>>)"
_NEWER_FORMAT = "it has format version {version}, written by a newer torchcheck (this one reads {supported})"
_KEY_NOT_NAME = (
    "its key is {stem}, but the file is named {name}; golden files are found by their key, so a "
    "renamed or copied file would be compared with the wrong machine"
)


class GoldenFileError(ValueError):
    """A golden file cannot be read: not JSON, a field missing or of the wrong kind, a merge
    conflict. Never overwritten silently: the message says to fix or delete it."""


def slug(text: str) -> str:
    """``NVIDIA H100 80GB HBM3`` -> ``nvidia-h100-80gb-hbm3``: safe in a file name."""
    return re.sub(r"[^a-z0-9.]+", "-", text.lower()).strip("-") or "unknown"


@dataclass(frozen=True)
class GoldenKey:
    """What a golden curve depends on: the machine and training regime it was recorded in.

    ``name`` (the device name) is part of the key only with ``detail="name"``, which an
    ``Exact()`` golden on CUDA implies.
    """

    device: str
    hardware: str
    precision: str
    world_size: int = 1
    torch: str = ""
    name: str | None = None

    @property
    def stem(self) -> str:
        """``cpu-avx2-float32-ws1-torch2.13``: the file name without ``.json``."""
        parts = [self.device, self.hardware]
        if self.name:
            parts.append(self.name)
        parts += [self.precision, f"ws{self.world_size}", f"torch{self.torch}"]
        return "-".join(parts)

    @property
    def file_name(self) -> str:
        return f"{self.stem}.json"

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "device": self.device,
            "hardware": self.hardware,
            "precision": self.precision,
            "world_size": self.world_size,
            "torch": self.torch,
        }
        if self.name:
            data["name"] = self.name
        return data

    @classmethod
    def from_json(cls, data: Any) -> GoldenKey:
        if not isinstance(data, Mapping):
            raise ValueError("'key' is not an object")
        try:
            key = cls(
                device=str(data["device"]),
                hardware=str(data["hardware"]),
                precision=str(data["precision"]),
                world_size=int(data["world_size"]),
                torch=str(data["torch"]),
                name=str(data["name"]) if data.get("name") else None,
            )
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"'key' lacks or mangles a field ({error})") from None
        return key

    def with_name(self, name: str | None) -> GoldenKey:
        return replace(self, name=slug(name) if name else None)


@dataclass(frozen=True)
class GoldenRecord:
    """The content of one golden file (and what a recorded curve becomes)."""

    curve: str
    key: GoldenKey
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    recorded: Mapping[str, Any] = field(default_factory=dict)
    init_sha256: str | None = None
    data_sha256: str | None = None
    modules: Mapping[str, float] | None = None

    @property
    def steps(self) -> int:
        return len(self.rows)

    def column(self, name: str) -> list[Any]:
        index = self.columns.index(name)
        return [row[index] for row in self.rows]

    def same_numbers(self, other: GoldenRecord) -> bool:
        """Equal columns, rows (NaN equal to NaN), hashes and module norms: rewriting the
        file would change nothing but the recording date."""
        return (
            self.columns == other.columns
            and [_comparable(row) for row in self.rows] == [_comparable(row) for row in other.rows]
            and self.init_sha256 == other.init_sha256
            and self.data_sha256 == other.data_sha256
            and _comparable(sorted((self.modules or {}).items()))
            == _comparable(sorted((other.modules or {}).items()))
        )


def _comparable(values: Any) -> Any:
    return json.dumps(values, default=str, allow_nan=True)


def encode_value(value: Any) -> Any:
    """A number as the file holds it: NaN and infinities as strings."""
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return value


def decode_value(value: Any) -> Any:
    if isinstance(value, str):
        if value not in _NON_FINITE:
            raise ValueError(f"{value!r} is not a number (only 'nan', 'inf' and '-inf' are written as strings)")
        return _NON_FINITE[value]
    if value is None or (isinstance(value, (int, float)) and not isinstance(value, bool)):
        return value
    raise ValueError(f"{value!r} is not a number")


def render_golden(record: GoldenRecord) -> str:
    """The file's text: one top-level field per line, one step per line."""
    fields = [
        (FORMAT_MARKER, FORMAT_VERSION),
        ("curve", record.curve),
        ("key", record.key.to_json()),
        ("recorded", dict(record.recorded)),
        ("init_sha256", record.init_sha256),
        ("data_sha256", record.data_sha256),
        ("columns", list(record.columns)),
    ]
    lines = [f"  {json.dumps(name)}: {_dumps(value)}," for name, value in fields]
    rows = [f"    {_dumps([encode_value(v) for v in row])}" for row in record.rows]
    lines.append('  "rows": [')
    lines.append(",\n".join(rows))
    if record.modules is not None:
        lines.append("  ],")
        entries = [f"    {json.dumps(name)}: {_dumps(encode_value(norm))}" for name, norm in record.modules.items()]
        lines.append('  "modules": {')
        lines.append(",\n".join(entries))
        lines.append("  }")
    else:
        lines.append("  ]")
    return "{\n" + "\n".join(line for line in lines if line) + "\n}\n"


def _dumps(value: Any) -> str:
    return json.dumps(value, allow_nan=False, ensure_ascii=False)


def parse_golden(text: str, path: str | os.PathLike[str]) -> GoldenRecord:
    """The record a golden file's text holds; :class:`GoldenFileError` naming the file and
    the problem otherwise."""
    try:
        return _parse(text)
    except ValueError as error:
        raise GoldenFileError(_NOT_GOLDEN.format(path=path, problem=error)) from None


def _parse(text: str) -> GoldenRecord:
    if _CONFLICT_MARKER.search(text):
        raise ValueError(_CONFLICT)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"not JSON ({error})") from None
    if not isinstance(data, dict) or FORMAT_MARKER not in data:
        raise ValueError(f"no {FORMAT_MARKER!r} field, so not a torchcheck golden file")
    version = data[FORMAT_MARKER]
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise ValueError(_NEWER_FORMAT.format(version=version, supported=FORMAT_VERSION))
    columns = _columns(data.get("columns"))
    return GoldenRecord(
        curve=str(data.get("curve", "")),
        key=GoldenKey.from_json(data.get("key")),
        columns=columns,
        rows=_rows(data.get("rows"), columns),
        recorded=_mapping(data.get("recorded", {}), "recorded"),
        init_sha256=_optional_text(data.get("init_sha256"), "init_sha256"),
        data_sha256=_optional_text(data.get("data_sha256"), "data_sha256"),
        modules=_modules(data.get("modules")),
    )


def _columns(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not value or value[0] != "step" or not all(isinstance(c, str) for c in value):
        raise ValueError("'columns' must be a list of names starting with 'step'")
    if len(set(value)) != len(value):
        raise ValueError("'columns' names a column twice")
    return tuple(value)


def _rows(value: Any, columns: Sequence[str]) -> tuple[tuple[Any, ...], ...]:
    if not isinstance(value, list) or not value:
        raise ValueError("'rows' must be a non-empty list")
    rows = []
    for index, row in enumerate(value, start=1):
        if not isinstance(row, list) or len(row) != len(columns):
            raise ValueError(f"row {index} must be a list of {len(columns)} values, one per column")
        if row[0] != index:
            raise ValueError(f"row {index} has step {row[0]!r}; steps must count 1, 2, 3, ...")
        try:
            rows.append(tuple(decode_value(v) for v in row))
        except ValueError as error:
            raise ValueError(f"row {index}: {error}") from None
    return tuple(rows)


def _mapping(value: Any, name: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"{name!r} is not an object")
    return value


def _optional_text(value: Any, name: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise ValueError(f"{name!r} is not a string")
    return value


def _modules(value: Any) -> dict[str, float] | None:
    if value is None:
        return None
    try:
        return {str(name): decode_value(norm) for name, norm in _mapping(value, "modules").items()}
    except ValueError as error:
        raise ValueError(f"'modules': {error}") from None


def read_golden(path: str | os.PathLike[str], *, expected_stem: str | None = None) -> GoldenRecord:
    """Read and check one golden file. ``expected_stem``: the key its name promises."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise GoldenFileError(_NOT_GOLDEN.format(path=path, problem=f"not UTF-8 text ({error})")) from None
    record = parse_golden(text, path)
    if expected_stem is not None and record.key.stem != expected_stem:
        problem = _KEY_NOT_NAME.format(stem=record.key.stem, name=Path(path).name)
        raise GoldenFileError(_NOT_GOLDEN.format(path=path, problem=problem))
    return record


def write_golden(path: str | os.PathLike[str], record: GoldenRecord) -> None:
    """Write atomically: a reader (or an interrupted run) never sees half a file."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    text = render_golden(record)
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(text)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
