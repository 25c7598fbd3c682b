import os

import torch
from torch import nn

out_dir = "out/pretrain"
resume = True
compile = True
ckpt_path = os.path.join(out_dir, "epoch_0.pth")


def init_model():
    return nn.Sequential(nn.Embedding(64793, 512), nn.Linear(512, 64793))


model = init_model()
if resume and os.path.exists(ckpt_path):
    state_dict = torch.load(ckpt_path, map_location="cpu")
    unwanted_prefix = "_orig_mod."
    for k, v in list(state_dict.items()):
        if k.startswith(unwanted_prefix):
            state_dict[k[len(unwanted_prefix):]] = state_dict.pop(k)
    model.load_state_dict(state_dict)
model.to("cuda")
if compile:
    model = torch.compile(model)
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)


def train_epoch(loader):
    for x, y in loader:
        logits = model(x.cuda())
        loss = nn.functional.cross_entropy(logits.view(-1, logits.size(-1)), y.cuda().view(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    torch.save(model.state_dict(), ckpt_path)
