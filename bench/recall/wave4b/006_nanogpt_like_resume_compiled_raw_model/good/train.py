import os

import torch
from torch.distributed import init_process_group
from torch.nn.parallel import DistributedDataParallel as DDP

from model import GPT

out_dir = "out"
init_from = "scratch"
compile = True
max_iters = 5000
eval_interval = 250
ddp = int(os.environ.get("RANK", -1)) != -1
if ddp:
    init_process_group(backend="nccl")
    ddp_local_rank = int(os.environ["LOCAL_RANK"])
    device = f"cuda:{ddp_local_rank}"
    torch.cuda.set_device(device)
else:
    device = "cuda"
ckpt_path = os.path.join(out_dir, "ckpt.pt")

model = GPT()
iter_num = 0
if init_from == "resume":
    checkpoint = torch.load(ckpt_path, map_location=device)
    model.load_state_dict(checkpoint["model"])
    iter_num = checkpoint["iter_num"]
model.to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=6e-4)
raw_model = model
if compile:
    model = torch.compile(model)
if ddp:
    model = DDP(model, device_ids=[ddp_local_rank])

while iter_num < max_iters:
    x, y = get_batch("train")
    logits, loss = model(x, y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    iter_num += 1
    if iter_num % eval_interval == 0:
        checkpoint = {"model": raw_model.state_dict(), "optimizer": optimizer.state_dict(), "iter_num": iter_num}
        torch.save(checkpoint, ckpt_path)
