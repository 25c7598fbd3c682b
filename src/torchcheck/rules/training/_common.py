"""What the training-loop rules share beyond the control flow (which lives in lint/flow)."""

from __future__ import annotations

import libcst as cst

from torchcheck.lint.nodes import dotted_name


def receiver_text(call: cst.Call) -> str | None:
    """``self.optimizer`` for ``self.optimizer.step()``; None for other shapes."""
    return dotted_name(call.func.value) if isinstance(call.func, cst.Attribute) else None
