import torch

from embed import embed_tiles


def run(encoder, loader, use_bf16):
    precision = torch.bfloat16 if use_bf16 else torch.float16
    return embed_tiles(loader, encoder.cuda(), "cuda", precision=precision)
