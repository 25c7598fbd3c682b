from __future__ import annotations

import libcst as cst

from torchcheck.lint.context import LintContext
from torchcheck.lint.edits import keyword
from torchcheck.lint.nodes import source_text
from torchcheck.lint.references import handed_on_uncalled, other_branch_spells
from torchcheck.lint.rule import FixSafety, ImportedName, ImportTrackingRule, Invalid, Valid

# deprecated qualified name -> (its torch.amp replacement, the device it implied)
_DEPRECATED: dict[str, tuple[str, str]] = {
    "torch.cuda.amp.autocast": ("autocast", "cuda"),
    "torch.cuda.amp.autocast_mode.autocast": ("autocast", "cuda"),
    "torch.cpu.amp.autocast": ("autocast", "cpu"),
    "torch.cpu.amp.autocast_mode.autocast": ("autocast", "cpu"),
    "torch.cuda.amp.GradScaler": ("GradScaler", "cuda"),
    "torch.cuda.amp.grad_scaler.GradScaler": ("GradScaler", "cuda"),
    "torch.cpu.amp.GradScaler": ("GradScaler", "cpu"),
    "torch.cpu.amp.grad_scaler.GradScaler": ("GradScaler", "cpu"),
}
# The PyTorch version that introduced each device-generic replacement.
_REPLACEMENT_SINCE = {"autocast": (1, 10), "GradScaler": (2, 3)}
# torch.cuda.amp.autocast(enabled, dtype, cache_enabled) - torch.amp.autocast takes
# device_type first and dtype before enabled, so positional arguments become keywords.
_AUTOCAST_POSITIONAL = ("enabled", "dtype", "cache_enabled")

CALL_MESSAGE = "`{old}(...)` is deprecated; use `torch.amp.{new}(\"{device}\", ...)`"
REFERENCE_MESSAGE = "`{old}` is deprecated and is called later through this reference; use `functools.partial(torch.amp.{new}, \"{device}\")`"
IMPORT_MESSAGE = "`{old}` is deprecated; use `torch.amp.{new}(\"{device}\", ...)` instead"


class DeprecatedCudaAmp(ImportTrackingRule):
    """
    ## What it does
    Checks for `torch.cuda.amp.autocast(...)`, `torch.cuda.amp.GradScaler(...)`,
    `torch.cpu.amp.autocast(...)` and `torch.cpu.amp.GradScaler(...)`, and for imports of
    these names (`from torch.cuda.amp import autocast, GradScaler`), also where one is
    handed on uncalled to be constructed later (`functools.partial(torch.cuda.amp.autocast,
    ...)`, a context factory passed to a helper or stored: `amp.autocast if fp16 else
    nullcontext`; reported without a fix).

    ## Why is this bad?
    The device-specific AMP entry points are deprecated since PyTorch 2.4 and emit a
    `FutureWarning` on every construction. The device-generic `torch.amp.autocast` and
    `torch.amp.GradScaler` take the device as their first argument and work the same way
    for CUDA, CPU, XPU and MPS.

    Code that deliberately falls back to the old API for old PyTorch versions (inside an
    `except` handler, or under an `if` that checks the version or probes with `hasattr`)
    is left alone, and so is a name imported from both the old and the new place. With a
    `target-version` older than 2.3 (which introduced `torch.amp.GradScaler`) the scaler is
    not reported, and older than 1.10 neither is `autocast`.

    ## Example
    ```python
    import torch
    from torch.cuda.amp import GradScaler

    scaler = GradScaler()
    with torch.cuda.amp.autocast(dtype=torch.float16):
        loss = model(x)
    ```

    Use instead:
    ```python
    import torch

    scaler = torch.amp.GradScaler("cuda")
    with torch.amp.autocast("cuda", dtype=torch.float16):
        loss = model(x)
    ```

    ## Fix safety
    The fix rewrites each call to `torch.amp.autocast("cuda", ...)` /
    `torch.amp.GradScaler("cuda", ...)` (`"cpu"` for the `torch.cpu.amp` versions), which
    constructs exactly what the deprecated wrapper constructs. Positional arguments of
    `autocast` become keywords (`enabled=`, `dtype=`, `cache_enabled=`), because the new
    signature orders them differently; a call passing `*args` is not fixed. The fix needs
    the name `torch` in scope: a call spelled through a `from torch.cuda.amp import ...`
    alias is fixed only where `import torch` is visible. The import itself is reported
    without a fix (other modules may import the name from this one); remove it once no
    call uses it.

    ## References
    - [Automatic mixed precision package - `torch.amp`](https://pytorch.org/docs/stable/amp.html)
    - [`torch.amp.GradScaler`](https://pytorch.org/docs/stable/amp.html#gradient-scaling)
    - [PyTorch 2.4 release notes: `torch.cuda.amp` deprecations](https://github.com/pytorch/pytorch/releases/tag/v2.4.0)
    """

    code = "TCK301"
    name = "deprecated-cuda-amp"
    message = "Deprecated `torch.cuda.amp` / `torch.cpu.amp` API; use `torch.amp` with an explicit device"
    fix_title = "Use `torch.amp` with an explicit device"
    fix_safety = FixSafety.SAFE
    required_text = ("cuda.amp", "cpu.amp", "import amp")

    VALID = (
        Valid(
            """
import functools
import torch
from trainer.utils import is_pytorch_at_least_2_3

if is_pytorch_at_least_2_3():
    GradScaler = functools.partial(torch.GradScaler, device="cuda")
else:
    GradScaler = torch.cuda.amp.GradScaler
"""
        ),
        Valid(
            """
import torch
scaler = torch.amp.GradScaler("cuda")
with torch.amp.autocast("cuda", dtype=torch.bfloat16):
    out = model(x)
with torch.autocast(device_type="cpu"):
    out = model(x)
"""
        ),
        Valid(
            """
import torch
class NativeScaler:
    def __init__(self, device="cuda"):
        try:
            self._scaler = torch.amp.GradScaler(device=device)
        except (AttributeError, TypeError):
            self._scaler = torch.cuda.amp.GradScaler()
"""
        ),
        Valid(
            """
try:
    from torch.amp import autocast
except ImportError:
    from torch.cuda.amp import autocast
"""
        ),
        Valid(
            """
import torch
if hasattr(torch.amp, "GradScaler"):
    scaler = torch.amp.GradScaler("cuda")
else:
    scaler = torch.cuda.amp.GradScaler()
"""
        ),
        Valid(
            """
import torch
from packaging import version
if version.parse(torch.__version__) < version.parse("2.4"):
    ctx = torch.cuda.amp.autocast(dtype=torch.float16)
"""
        ),
        Valid(
            """
import torch
autocast_fn = torch.amp.autocast
isinstance(ctx, torch.cuda.amp.autocast)
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch
scaler = torch.cuda.amp.GradScaler()  # TCK301
with torch.cuda.amp.autocast():  # TCK301
    loss = model(x)
""",
            expected_replacement="""
import torch
scaler = torch.amp.GradScaler("cuda")  # TCK301
with torch.amp.autocast("cuda"):  # TCK301
    loss = model(x)
""",
        ),
        Invalid(
            """
import torch as T
scaler = T.cuda.amp.GradScaler(2.0**16, enabled=use_amp)  # TCK301
with T.cuda.amp.autocast(True, T.bfloat16):  # TCK301
    loss = model(x)
with T.cpu.amp.autocast(dtype=T.bfloat16):  # TCK301
    loss = model(x)
""",
            expected_replacement="""
import torch as T
scaler = T.amp.GradScaler("cuda", 2.0**16, enabled=use_amp)  # TCK301
with T.amp.autocast("cuda", enabled=True, dtype=T.bfloat16):  # TCK301
    loss = model(x)
with T.amp.autocast("cpu", dtype=T.bfloat16):  # TCK301
    loss = model(x)
""",
        ),
        Invalid(
            """
import torch
from torch.cuda.amp import autocast, GradScaler  # TCK301

scaler = GradScaler(enabled=True)  # TCK301

@autocast()  # TCK301
def forward(model, x):
    return model(x)
""",
            expected_replacement="""
import torch
from torch.cuda.amp import autocast, GradScaler  # TCK301

scaler = torch.amp.GradScaler("cuda", enabled=True)  # TCK301

@torch.amp.autocast("cuda")  # TCK301
def forward(model, x):
    return model(x)
""",
        ),
        Invalid(
            """
import torch
if getattr(args, "amp", False):
    scaler = torch.cuda.amp.GradScaler(**scaler_kwargs)  # TCK301
""",
            expected_replacement="""
import torch
if getattr(args, "amp", False):
    scaler = torch.amp.GradScaler("cuda", **scaler_kwargs)  # TCK301
""",
        ),
        Invalid(
            """
from torch.cuda.amp import autocast  # TCK301

def forward(model, x):
    with autocast(enabled=True):  # TCK301
        return model(x)
"""
        ),
        Invalid(
            """
import torch
from torch.cuda import amp
with amp.autocast(  # TCK301
    enabled=True,
    dtype=torch.float16,
):
    out = model(x)
with amp.autocast(*flags):  # TCK301
    out = model(x)
""",
            expected_replacement="""
import torch
from torch.cuda import amp
with torch.amp.autocast(  # TCK301
    "cuda",
    enabled=True,
    dtype=torch.float16,
):
    out = model(x)
with amp.autocast(*flags):  # TCK301
    out = model(x)
""",
        ),
        Invalid(
            """
import contextlib
import functools
import torch.cuda.amp as amp

class Trainer:
    def __init__(self, mixed_precision):
        self.forward_context = amp.autocast if mixed_precision else contextlib.nullcontext  # TCK301
        self.bf16_context = functools.partial(amp.autocast, dtype=torch.bfloat16)  # TCK301

    def validate(self, loader):
        return self._run_epoch(loader, amp.autocast)  # TCK301
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._imported: set[str] = set()  # local names of the deprecated classes

    # ------------------------------------------------------------------ imports
    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if node.relative or node.module is None or isinstance(node.names, cst.ImportStar):
            return
        module = source_text(node.module)
        if not module.startswith(("torch.cuda.amp", "torch.cpu.amp")) or self.context.in_compatibility_code:
            return
        for alias in node.names:
            qualified = f"{module}.{source_text(alias.name)}"
            local = alias.asname.name if alias.asname is not None else alias.name
            if qualified in _DEPRECATED and isinstance(local, cst.Name):
                self.track_import(node, local.value, qualified)
                self._imported.add(local.value)

    def report_imports(self, imports: list[ImportedName]) -> None:
        """One finding per import statement (a name also imported from ``torch.amp`` in a
        fallback is ambiguous and never gets here)."""
        first_of_statement: dict[cst.CSTNode, ImportedName] = {}
        for found in imports:
            first_of_statement.setdefault(found.node, found)
        for found in first_of_statement.values():
            if self._replacement_exists(found.qualified):
                new, device = _DEPRECATED[found.qualified]
                self.report(found.node, IMPORT_MESSAGE.format(old=found.qualified, new=new, device=device))

    def _fallback(self, node: cst.CSTNode) -> bool:
        """Compatibility code: an ``except`` handler, a version test, or the other branch of an
        ``if`` whose first branch spells the replacement (``torch.amp``, ``torch.GradScaler``)."""
        new_spelling = lambda found: type(found) in (cst.Attribute, cst.Name) and _is_replacement(self.context.qualified_name(found))  # noqa: E731
        return self.context.in_compatibility_code or other_branch_spells(self.context.binder, node, new_spelling)

    def _replacement_exists(self, qualified: str) -> bool:
        new, _ = _DEPRECATED[qualified]
        return self.context.settings.has_torch_api(_REPLACEMENT_SINCE[new])

    # ------------------------------------------------------------------ calls
    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.context.call_name(node)
        if qualified not in _DEPRECATED or self._fallback(node) or not self._replacement_exists(qualified):
            return
        new, device = _DEPRECATED[qualified]
        message = CALL_MESSAGE.format(old=qualified, new=new, device=device)
        self.report(node, message, replacement=self._replacement(node, new, device))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value in _REPLACEMENT_SINCE:
            self._report_reference(node)

    def visit_Name(self, node: cst.Name) -> None:
        if node.value in self._imported:
            self._report_reference(node)

    def _report_reference(self, node: cst.Attribute | cst.Name) -> None:
        """``self._run(amp.autocast)``: handed on uncalled, it is constructed later all the same."""
        qualified = self.context.qualified_name(node)
        if qualified not in _DEPRECATED or self._fallback(node) or not self._replacement_exists(qualified):
            return
        if handed_on_uncalled(self.context.binder, node):
            new, device = _DEPRECATED[qualified]
            self.report(node, REFERENCE_MESSAGE.format(old=qualified, new=new, device=device))

    def _replacement(self, call: cst.Call, new: str, device: str) -> cst.Call | None:
        function = self.context.reference_to(f"torch.amp.{new}", call.func)
        arguments = _new_arguments(call, device, convert_positional=new == "autocast")
        if function is None or arguments is None:
            return None
        return call.with_changes(func=function, args=arguments)


def _is_replacement(qualified: str | None) -> bool:
    return qualified is not None and (qualified.startswith("torch.amp.") or qualified in ("torch.GradScaler", "torch.autocast"))


def _new_arguments(call: cst.Call, device: str, *, convert_positional: bool) -> list[cst.Arg] | None:
    arguments = list(call.args)
    if convert_positional:
        positional = [index for index, argument in enumerate(arguments) if not (argument.keyword or argument.star)]
        if any(argument.star == "*" for argument in arguments) or len(positional) > len(_AUTOCAST_POSITIONAL):
            return None  # cannot tell which parameters the values fill
        for name, index in zip(_AUTOCAST_POSITIONAL, positional):
            old = arguments[index]
            named = keyword(name, old.value)
            arguments[index] = named.with_changes(comma=old.comma, whitespace_after_arg=old.whitespace_after_arg)
    comma = arguments[0].comma if arguments else cst.MaybeSentinel.DEFAULT
    breaks_line = isinstance(comma, cst.Comma) and isinstance(comma.whitespace_after, cst.ParenthesizedWhitespace)
    if arguments and not breaks_line:
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    return [cst.Arg(value=cst.SimpleString(f'"{device}"'), comma=comma), *arguments]
