import torch
import torch.nn as nn
from torch.distributed.fsdp import fully_shard


def apply_fsdp2(model, fsdp_kwargs, layer_cls_names):
    """Shard every transformer block, then the root module."""
    for module in model.modules():
        if module.__class__.__name__ in layer_cls_names or (
            isinstance(module, nn.Embedding) and not model.config.tie_word_embeddings
        ):
            fully_shard(module, **fsdp_kwargs)
    fully_shard(model, **fsdp_kwargs)


def fsdp2_clip_grad_norm_(parameters, max_norm, norm_type=2.0):
    """clip_grad_norm_ for DTensor parameters that may be offloaded to the CPU."""
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = torch.nn.utils.get_total_norm(grads, norm_type)
    torch.nn.utils.clip_grads_with_norm_(
        [p for p in parameters if p.grad is not None], max_norm, total_norm.to(grads[0].device)
    )
    return total_norm
