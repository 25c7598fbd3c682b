"""Value types for findings, shaped like ruff's JSON so tools that read ruff read us."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

SYNTAX_ERROR_CODE = "TCK000"
SYNTAX_ERROR_NAME = "unparsable-file"
DOCS_URL = "https://github.com/torchcheck/torchcheck/blob/main/rules/{code}.md"


@dataclass(frozen=True, order=True)
class Location:
    row: int  # 1-based
    column: int  # 1-based, like ruff


@dataclass(frozen=True)
class Edit:
    content: str
    location: Location
    end_location: Location


@dataclass(frozen=True)
class Fix:
    applicability: str  # "safe" or "unsafe"
    message: str
    edits: tuple[Edit, ...]


@dataclass(frozen=True)
class RelatedPlace:
    """Another place that a finding's message names (where a fact about another file, or
    another part of the same file, was found), so that an editor can link to it."""

    filename: str  # as findings name files
    row: int  # 1-based; in a notebook, counted within ``cell``
    cell: int | None = None
    message: str = ""  # what is there: "`F.softmax(...)` in `Net`"

    @property
    def text(self) -> str:
        """How messages name the place: ``model.py:11``, ``analysis.ipynb:cell 3:7``."""
        cell = "" if self.cell is None else f"cell {self.cell}:"
        return f"{self.filename}:{cell}{self.row}"


@dataclass(frozen=True)
class Diagnostic:
    filename: str
    code: str
    name: str
    message: str
    location: Location
    end_location: Location
    source_line: str = ""
    fix: Fix | None = None
    # In a notebook, the cell (numbered from 1, every kind counted) whose rows and columns
    # ``location`` counts; None in a Python file.
    cell: int | None = None
    related: RelatedPlace | None = None  # the other place the message names, if any

    @property
    def sort_key(self) -> tuple[str, int, int, int, str]:
        return (self.filename, self.cell or 0, self.location.row, self.location.column, self.code)

    @property
    def url(self) -> str | None:
        return None if self.code == SYNTAX_ERROR_CODE else DOCS_URL.format(code=self.code)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Diagnostic:
        fix = data.get("fix")
        return cls(
            filename=data["filename"],
            code=data["code"],
            name=data["name"],
            message=data["message"],
            location=Location(**data["location"]),
            end_location=Location(**data["end_location"]),
            source_line=data.get("source_line", ""),
            cell=data.get("cell"),
            related=RelatedPlace(**data["related"]) if data.get("related") else None,
            fix=None
            if fix is None
            else Fix(
                applicability=fix["applicability"],
                message=fix["message"],
                edits=tuple(
                    Edit(
                        content=edit["content"],
                        location=Location(**edit["location"]),
                        end_location=Location(**edit["end_location"]),
                    )
                    for edit in fix["edits"]
                ),
            ),
        )
