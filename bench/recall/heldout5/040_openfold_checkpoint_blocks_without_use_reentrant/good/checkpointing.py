from typing import Any, Callable, List, Optional, Tuple

import torch
import torch.utils.checkpoint


def checkpoint_blocks(blocks: List[Callable], args: Tuple[Any, ...], blocks_per_ckpt: Optional[int]):
    def wrap(a):
        return (a,) if type(a) is not tuple else a

    def exec(b, a):
        for block in b:
            a = wrap(block(*a))
        return a

    def chunker(s, e):
        def exec_sliced(*a):
            return exec(blocks[s:e], a)
        return exec_sliced

    args = wrap(args)
    if blocks_per_ckpt is None or not torch.is_grad_enabled():
        return exec(blocks, args)
    for s in range(0, len(blocks), blocks_per_ckpt):
        e = s + blocks_per_ckpt
        args = torch.utils.checkpoint.checkpoint(chunker(s, e), *args, use_reentrant=False)
        args = wrap(args)
    return args
