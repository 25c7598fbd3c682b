import torch
from torch.nn.attention.flex_attention import create_block_mask

from model import SlidingAttention, sliding_window

model = torch.compile(SlidingAttention(768, 12).cuda())
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
seq_len = 16384
block_mask = create_block_mask(sliding_window, B=None, H=None, Q_LEN=seq_len, KV_LEN=seq_len, device="cuda")


def train(loader):
    for x in loader:
        loss = model(x.cuda(), block_mask).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
