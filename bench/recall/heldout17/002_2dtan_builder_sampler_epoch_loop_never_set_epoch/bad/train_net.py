import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from data import make_data_loader
from trainer import do_train


class TAN(nn.Module):
    def __init__(self, feat_dim=500, hidden=512, num_clips=64):
        super().__init__()
        self.clip_proj = nn.Linear(feat_dim, hidden)
        self.query_enc = nn.LSTM(300, hidden, batch_first=True)
        self.score = nn.Conv2d(hidden, 1, 5, padding=2)
        self.num_clips = num_clips

    def forward(self, feats, queries, targets):
        clips = self.clip_proj(feats)                                  # B, N, H
        _, (q, _) = self.query_enc(queries)                            # 1, B, H
        start = clips.unsqueeze(2).expand(-1, -1, self.num_clips, -1)
        end = clips.unsqueeze(1).expand(-1, self.num_clips, -1, -1)
        map2d = (start + end) * q[-1][:, None, None, :]
        logits = self.score(map2d.permute(0, 3, 1, 2)).squeeze(1)
        return nn.functional.binary_cross_entropy_with_logits(logits, targets)


def main():
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    num_gpus = int(os.environ.get("WORLD_SIZE", 1))
    distributed = num_gpus > 1
    if distributed:
        torch.cuda.set_device(local_rank)
        dist.init_process_group(backend="nccl")
    device = torch.device("cuda", local_rank)

    model = TAN().to(device)
    if distributed:
        model = DistributedDataParallel(model, device_ids=[local_rank])
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[8, 11])
    cfg = {"batch_size": 32, "world_size": num_gpus, "num_workers": 4}
    data_loader = make_data_loader(cfg, is_train=True, is_distributed=distributed)

    def checkpointer(epoch):
        if not distributed or dist.get_rank() == 0:
            state = model.module.state_dict() if distributed else model.state_dict()
            torch.save(state, f"model_{epoch}e.pth")

    do_train(model, data_loader, optimizer, scheduler, checkpointer, device, max_epoch=12)


if __name__ == "__main__":
    main()
