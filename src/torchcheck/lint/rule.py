"""The rule base class and the example types that double as each rule's tests.

A rule is one small class in its own module: metadata as class attributes, its user-facing
documentation as the docstring (ruff's headings), ``VALID``/``INVALID`` examples, and a few
``visit_<Node>`` / ``leave_<Node>`` methods that call :meth:`Rule.report`.
"""

from __future__ import annotations

import enum
import re
import textwrap
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

import libcst as cst

from torchcheck.lint.kinds import Evidence

if TYPE_CHECKING:
    from collections.abc import Sequence

    from torchcheck.lint.context import LintContext
    from torchcheck.lint.flow import Loop
    from torchcheck.lint.project import Condition


class FixSafety(enum.Enum):
    """How confidently ``--fix`` may apply a rule's replacement."""

    NONE = "none"
    SAFE = "safe"  # applied by --fix
    UNSAFE = "unsafe"  # applied only with --unsafe-fixes


def fix_safety_on(evidence: Evidence | None) -> FixSafety:
    """A fix that is right only for a value of the inferred kind is safe only when the code
    itself shows the kind (a construction, an assignment, an ``isinstance`` check), never
    when only a name (``model``) or a type annotation suggests it."""
    return FixSafety.SAFE if evidence is Evidence.STRONG else FixSafety.UNSAFE


@dataclass(frozen=True)
class Valid:
    """Code the rule must stay silent on."""

    code: str


@dataclass(frozen=True)
class Invalid:
    """Code the rule must report.

    Lines ending in a ``# TCKnnn`` comment mark where the finding must be reported.
    ``expected_replacement`` is the whole file after the rule's fix is applied.
    """

    code: str
    expected_replacement: str | None = None


@dataclass(frozen=True)
class Report:
    """One finding raised by a rule during the walk (positions are resolved later)."""

    rule: type[Rule]
    node: cst.CSTNode
    message: str
    statement: cst.CSTNode | None = None  # the enclosing simple statement, for noqa ranges
    top_level: cst.CSTNode | None = None  # the module-level statement being walked when it was found
    replace_target: cst.CSTNode | None = None
    replacement: cst.CSTNode | cst.RemovalSentinel | None = None
    fix_safety: FixSafety = FixSafety.NONE  # of this finding's replacement: the rule's, or weaker
    # The finding stands only if these facts about other files of the project hold (a
    # deferred finding, resolved once every file is summarised; see lint/project.py).
    conditions: tuple[Condition, ...] = ()


_CODE_PATTERN = re.compile(r"^TCK\d{3}$")
_NAME_PATTERN = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


class Rule:
    """Base class of every lint rule.

    Subclasses set the class attributes below and implement ``visit_*``/``leave_*``
    methods named after libcst node types. The engine calls them in one walk shared by
    all enabled rules; ``self.context`` answers what names hold and where the walk is.
    """

    code: ClassVar[str]
    name: ClassVar[str]
    message: ClassVar[str]
    fix_title: ClassVar[str | None] = None
    default_enabled: ClassVar[bool] = True
    fix_safety: ClassVar[FixSafety] = FixSafety.NONE
    # The rule can only fire when one of these substrings occurs in the source; files
    # that contain none of the enabled rules' substrings are not even parsed.
    required_text: ClassVar[tuple[str, ...]] = ()
    # The PyTorch version that introduced the API this rule recommends: a project whose
    # `target-version` is older cannot follow the advice, so the rule stays off for it.
    requires_torch: ClassVar[tuple[int, int] | None] = None
    # False for advice about how to train (speed, a training step's numerics) that a test,
    # which exercises an API on purpose, need not follow: findings inside test functions,
    # fixtures and test classes are dropped (see lint/testing_code.py).
    applies_in_tests: ClassVar[bool] = True
    # The TorchFix codes whose findings this rule reports (for the migration table and
    # the parity test).
    torchfix_codes: ClassVar[tuple[str, ...]] = ()
    VALID: ClassVar[tuple[Valid, ...]] = ()
    INVALID: ClassVar[tuple[Invalid, ...]] = ()

    # or a line that matches this (`total = total + loss` has no fixed text to look for)
    required_pattern: ClassVar[re.Pattern[str] | None] = None

    @classmethod
    def may_fire_in(cls, text: str) -> bool:
        """Whether the rule can fire in a file with this source: by default, whether one of
        ``required_text`` occurs in it, or ``required_pattern`` matches. A file no enabled
        rule may fire in is not parsed."""
        return not cls.required_text or any(token in text for token in cls.required_text) or cls.matches_required_pattern(text)

    @classmethod
    def matches_required_pattern(cls, text: str) -> bool:
        return cls.required_pattern is not None and cls.required_pattern.search(text) is not None

    def __init__(self, context: LintContext) -> None:
        self.context = context
        self.reports: list[Report] = []
        if type(self).leave_loop is not Rule.leave_loop:
            context.flow.on_leave_loop(self.leave_loop)

    def leave_loop(self, loop: Loop) -> None:
        """Called once the outermost loop of a function (or of the module) is complete,
        with everything nested in it walked: the place to decide on facts collected per
        loop with ``self.context.flow.loop_facts(self, ...)``."""

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if "code" not in cls.__dict__:
            return  # an abstract intermediate class
        if not _CODE_PATTERN.match(cls.code):
            raise TypeError(f"{cls.__name__}: code {cls.code!r} is not of the form TCKnnn")
        if not _NAME_PATTERN.match(cls.name):
            raise TypeError(f"{cls.__name__}: name {cls.name!r} is not kebab-case")

    @classmethod
    def has_fix(cls) -> bool:
        """A rule offers a fix only if an example proves what the fix produces."""
        return any(example.expected_replacement is not None for example in cls.INVALID)

    @classmethod
    def summary(cls) -> str:
        """The first sentence of the doc ("Checks for ...")."""
        return documentation(cls).split("\n\n", 1)[0].replace("## What it does", "").strip()

    def report(
        self,
        node: cst.CSTNode,
        message: str | None = None,
        *,
        replacement: cst.CSTNode | cst.RemovalSentinel | None = None,
        replace_target: cst.CSTNode | None = None,
        fix_safety: FixSafety | None = None,
        conditions: Sequence[Condition] = (),
    ) -> None:
        """Record a finding at ``node``; ``replacement`` replaces ``replace_target or node``.

        ``fix_safety=FixSafety.UNSAFE`` downgrades this finding's fix where the rule's own
        safety does not hold (see "Fix safety" in its doc); a finding never gets a safer fix
        than the rule declares.

        With ``conditions`` the finding stands only if each holds in the project index
        (``Net`` imported from ``model`` ends its ``forward`` with a softmax); its message may
        name the place the first condition found with :data:`~torchcheck.lint.project.PLACE`.
        """
        if replacement is not None and self.fix_safety is FixSafety.NONE:
            raise TypeError(f"{self.code} offers a replacement but declares no fix safety")
        if fix_safety is FixSafety.NONE:
            raise TypeError(f"{self.code}: a finding without a fix passes no replacement, not FixSafety.NONE")
        self.reports.append(
            Report(
                rule=type(self),
                node=node,
                message=message or self.message,
                statement=self.context.current_statement,
                top_level=self.context.top_level_statement,
                replace_target=(replace_target or node) if replacement is not None else None,
                replacement=replacement,
                fix_safety=_weaker(self.fix_safety, fix_safety) if replacement is not None else FixSafety.NONE,
                conditions=tuple(conditions),
            )
        )


def _weaker(declared: FixSafety, requested: FixSafety | None) -> FixSafety:
    if requested is FixSafety.UNSAFE:
        return FixSafety.UNSAFE
    return declared


def documentation(rule: type[Rule]) -> str:
    """The rule's long documentation (its docstring, dedented)."""
    return textwrap.dedent(rule.__doc__ or "").strip()


@dataclass(frozen=True)
class ImportedName:
    """A name bound by an import, tracked until its scope is complete."""

    node: cst.CSTNode  # where a finding about it is reported
    local: str
    qualified: str


class ImportTrackingRule(Rule):
    """Base of rules about imported names.

    Subclasses call :meth:`track_import` while visiting imports. When the scope holding an
    import closes, :meth:`report_imports` receives the imports whose local name still means
    what was imported: a name also imported from elsewhere (a ``try``/``except ImportError``
    fallback) is ambiguous there and is dropped.
    """

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._tracked: list[list[ImportedName]] = []

    def track_import(self, node: cst.CSTNode, local: str, qualified: str) -> None:
        self._tracked[-1].append(ImportedName(node, local, qualified))

    def report_imports(self, imports: list[ImportedName]) -> None:
        raise NotImplementedError

    def _open_scope(self) -> None:
        self._tracked.append([])

    def _close_scope(self) -> None:
        still_bound = [
            imported
            for imported in self._tracked.pop()
            if self.context.qualified_name(cst.Name(imported.local)) == imported.qualified
        ]
        if still_bound:
            self.report_imports(still_bound)

    def visit_Module(self, node: cst.Module) -> None:
        self._open_scope()

    def leave_Module(self, node: cst.Module) -> None:
        self._close_scope()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._open_scope()

    def leave_ClassDef(self, node: cst.ClassDef) -> None:
        self._close_scope()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._open_scope()

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._close_scope()
