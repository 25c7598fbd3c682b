"""Which layers that behave differently in train mode actually ran in train mode.

Checks that compare two runs of the user's training code (accumulated vs. whole batch,
low precision vs. float32) name these layers when they explain a difference: BatchNorm
normalises with the statistics of the batch it sees. The mode at call time is what
counts, since the user's code may call ``model.train()``. Dropout draws masks that
cannot agree between one batch and its parts by construction, so checks switch
randomness off where it is drawn, whatever its spelling
(:mod:`torchcheck.checks._stochastic`), not by setting ``p = 0`` on ``nn.Dropout``
modules, which misses ``F.dropout``, attention ``dropout_p`` and drop-path.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from torch import nn

__tracebackhide__ = True  # pytest shows a failure from the caller's line, without this module's frames
__all__ = ["TrainModeLayers", "module_list", "recording_train_mode_layers"]


@dataclass
class TrainModeLayers:
    """Module paths of the layers that ran in train mode while recording."""

    batch_statistics: set[str] = field(default_factory=set)


@contextlib.contextmanager
def recording_train_mode_layers(model: nn.Module) -> Iterator[TrainModeLayers]:
    """Record BatchNorm layers (any ``_BatchNorm``, also ``SyncBatchNorm``) whose forward
    runs in train mode; the hooks are removed on exit."""
    found = TrainModeLayers()
    handles = []
    for name, module in model.named_modules():
        if isinstance(module, nn.modules.batchnorm._BatchNorm):
            handles.append(module.register_forward_pre_hook(_recorder(name, found.batch_statistics)))
    try:
        yield found
    finally:
        for handle in handles:
            handle.remove()


def _recorder(name: str, found: set[str]) -> Callable[[nn.Module, Any], None]:
    def hook(module: nn.Module, _inputs: Any) -> None:
        if module.training:
            found.add(name or type(module).__name__)

    return hook


def module_list(names: set[str] | list[str], limit: int = 4) -> str:
    """``'bn1', 'layer1.0.bn2' and 3 more``, sorted."""
    ordered = sorted(names)
    shown = ", ".join(f"'{name}'" for name in ordered[:limit])
    return shown + (f" and {len(ordered) - limit} more" if len(ordered) > limit else "")
