import argparse
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

from mem_transformer import MemTransformerLM

parser = argparse.ArgumentParser()
parser.add_argument("--multi_gpu", action="store_true")
parser.add_argument("--n_layer", type=int, default=12)
args = parser.parse_args()

local_rank = int(os.environ.get("LOCAL_RANK", 0))
torch.cuda.set_device(local_rank)
device = torch.device("cuda", local_rank)
model = MemTransformerLM(n_layer=args.n_layer)

if args.multi_gpu:
    dist.init_process_group(backend="nccl")
    model = model.to(device)
    para_model = DistributedDataParallel(model, device_ids=[local_rank])
else:
    para_model = model.to(device)

optimizer = torch.optim.Adam(model.parameters(), lr=2.5e-4)


def train(train_iter):
    para_model.train()
    mems = tuple()
    for data, target in train_iter:
        optimizer.zero_grad()
        ret = para_model(data, target, *mems)
        loss, mems = ret[0], ret[1:]
        loss = loss.float().mean()
        loss.backward()
        optimizer.step()
