from typing import Callable, List, Optional

import torch.utils.checkpoint


def checkpoint_blocks(blocks: List[Callable], args, blocks_per_ckpt: Optional[int]):
    def wrap(a):
        return (a,) if type(a) is not tuple else a

    def exec_sliced(b, a):
        for block in b:
            a = wrap(block(*a))
        return a

    args = wrap(args)
    if blocks_per_ckpt is None:
        return exec_sliced(blocks, args)
    for s in range(0, len(blocks), blocks_per_ckpt):
        e = s + blocks_per_ckpt
        args = torch.utils.checkpoint.checkpoint(lambda *a, b=blocks[s:e]: exec_sliced(b, a), *args)  # expect: TCK906
        args = wrap(args)
    return args
