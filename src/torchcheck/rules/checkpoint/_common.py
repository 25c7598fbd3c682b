"""Names shared by the checkpoint rules."""

from __future__ import annotations

import libcst as cst

from torchcheck.lint.nodes import keyword_argument


def saved_object(call: cst.Call) -> cst.BaseExpression | None:
    """What ``torch.save(obj, f)`` saves: its first positional argument or ``obj=``."""
    first = call.args[0] if call.args else None
    if first is not None and first.keyword is None:
        return None if first.star else first.value
    keyword = keyword_argument(call, "obj")
    return keyword.value if keyword is not None else None
