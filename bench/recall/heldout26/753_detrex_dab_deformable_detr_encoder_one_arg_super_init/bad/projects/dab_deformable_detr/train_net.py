"""Build the transformer from the lazy config and run one optimisation step on random features."""
import sys

import torch
from detectron2.config import LazyConfig, instantiate

sys.path.insert(0, "projects/dab_deformable_detr")

cfg = LazyConfig.load("projects/dab_deformable_detr/configs/dab_deformable_detr_r50.py")
transformer = instantiate(cfg.transformer)
transformer.init_weights()
optimizer = torch.optim.AdamW(transformer.parameters(), lr=1e-4, weight_decay=1e-4)

shapes = [(64, 64), (32, 32), (16, 16), (8, 8)]
feats = [torch.randn(2, 256, h, w) for h, w in shapes]
masks = [torch.zeros(2, h, w, dtype=torch.bool) for h, w in shapes]
pos = [torch.randn(2, 256, h, w) for h, w in shapes]

out = transformer(feats, masks, pos)
loss = out.pow(2).mean()
optimizer.zero_grad()
loss.backward()
optimizer.step()
