"""The low-memory loading recipe of docs/checks.md, shared by the tests that load real models
and by bench/real_model_checks.py. ``init_non_persistent_buffers`` is the docs' function
word for word (tests/checks/test_meta_load_recipe.py holds them to that)."""

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
    """What from_pretrained does after a meta load (see assert_meta_load below): give the
    non-persistent buffers storage and let transformers initialise them. Every loaded
    parameter and buffer of the model is swapped for a meta stand-in meanwhile: initialising
    one module also writes to its children (CLIP's embeddings initialise their token
    embedding), and on meta those writes cost nothing and change nothing."""
    to_initialise, fresh = [], set()
    for module in model.modules():
        names = [name for name, buffer in module._buffers.items()
                 if name in module._non_persistent_buffers_set and buffer is not None and buffer.is_meta]
        for name in names:
            module._buffers[name] = torch.empty_like(module._buffers[name], device="cpu")
            fresh.add(id(module._buffers[name]))
        if names:
            to_initialise.append(module)
    loaded = [(tensors, name, tensor) for module in model.modules()
              for tensors in (module._parameters, module._buffers)
              for name, tensor in tensors.items() if tensor is not None and id(tensor) not in fresh]
    for tensors, name, tensor in loaded:
        stand_in = torch.empty_like(tensor, device="meta")
        tensors[name] = nn.Parameter(stand_in, tensor.requires_grad) if isinstance(tensor, nn.Parameter) else stand_in
    for module in to_initialise:
        model._init_weights(module)  # transformers' own initialisation of the buffers
    for tensors, name, tensor in loaded:
        tensors[name] = tensor
