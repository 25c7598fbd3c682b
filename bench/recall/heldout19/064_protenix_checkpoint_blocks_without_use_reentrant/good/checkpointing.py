import importlib
from functools import partial
from typing import Any, Callable, List, Optional

import torch
import torch.utils.checkpoint

deepspeed_is_installed = importlib.util.find_spec("deepspeed") is not None
if deepspeed_is_installed:
    import deepspeed

BLOCK_ARGS = List[Any]


def get_checkpoint_fn():
    deepspeed_is_configured = deepspeed_is_installed and deepspeed.checkpointing.is_configured()
    if deepspeed_is_configured:
        checkpoint = deepspeed.checkpointing.checkpoint
    else:
        checkpoint = partial(torch.utils.checkpoint.checkpoint, use_reentrant=False)
    return checkpoint


def checkpoint_blocks(blocks: List[Callable], args: BLOCK_ARGS, blocks_per_ckpt: Optional[int]) -> BLOCK_ARGS:
    def wrap(a):
        return (a,) if type(a) is not tuple else a

    def exec_blocks(b, a):
        for block in b:
            a = wrap(block(*a))
        return a

    def chunker(s, e):
        def exec_sliced(*a):
            return exec_blocks(blocks[s:e], a)

        return exec_sliced

    args = wrap(args)
    if blocks_per_ckpt is None or not torch.is_grad_enabled():
        return exec_blocks(blocks, args)
    if blocks_per_ckpt < 1 or blocks_per_ckpt > len(blocks):
        raise ValueError("blocks_per_ckpt must be between 1 and len(blocks)")

    checkpoint = get_checkpoint_fn()
    for s in range(0, len(blocks), blocks_per_ckpt):
        e = s + blocks_per_ckpt
        args = checkpoint(chunker(s, e), *args)
        args = wrap(args)
    return args
