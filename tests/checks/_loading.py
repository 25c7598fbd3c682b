"""The low-memory loading recipe of docs/checks.md, shared by the tests that load real models."""

from __future__ import annotations

import torch
from torch import nn


def saved_like_save_pretrained(model: nn.Module) -> dict[str, torch.Tensor]:
    """The state dict with every tied parameter stored once, under its first name."""
    seen: set[int] = set()
    kept = {}
    for key, tensor in model.state_dict(keep_vars=True).items():
        if id(tensor) not in seen:
            seen.add(id(tensor))
            kept[key] = tensor.detach()
    return kept


def init_non_persistent_buffers(model: nn.Module) -> None:
    """The recipe in docs/checks.md: what ``from_pretrained`` does after a meta load.
    Non-persistent buffers (rotary frequencies, position ids) are not in the checkpoint:
    give them storage and let the model initialise them, with the module's loaded
    parameters swapped for meta stand-ins meanwhile so that initialising cannot overwrite them."""
    for module in model.modules():
        names = [name for name, buffer in module._buffers.items()
                 if name in module._non_persistent_buffers_set and buffer is not None and buffer.is_meta]
        if not names:
            continue
        for name in names:
            module._buffers[name] = torch.empty_like(module._buffers[name], device="cpu")
        loaded = dict(module._parameters)
        module._parameters.update({n: nn.Parameter(p.to("meta")) for n, p in loaded.items() if p is not None})
        model._init_weights(module)
        module._parameters.update(loaded)
