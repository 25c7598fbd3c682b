import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

from matchmaker.models.all import get_model


def main(config, train_loader, loss_fn):
    model = get_model(config)
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    torch.cuda.set_device(local_rank)
    model = model.cuda(local_rank)
    if int(os.environ.get("WORLD_SIZE", 1)) > 1:
        dist.init_process_group(backend="nccl")
        model = DistributedDataParallel(model, device_ids=[local_rank])
    optimizer = torch.optim.Adam(model.parameters(), lr=config["lr"])
    for epoch in range(config["epochs"]):
        model.train()
        for batch in train_loader:
            optimizer.zero_grad()
            scores_pos = model(batch["query"], batch["doc_pos"])
            scores_neg = model(batch["query"], batch["doc_neg"])
            loss = loss_fn(scores_pos, scores_neg, torch.ones_like(scores_pos))
            loss.backward()
            optimizer.step()
