"""Slot-attention style object-centric model trained with nerv's BaseMethod (launch with torchrun --nproc_per_node=N)."""
import argparse
import os
from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

from nerv.training.method import BaseMethod
from nerv.training.model import BaseModel


class VideoFrames(Dataset):

    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, idx):
        g = torch.Generator().manual_seed(idx)
        return {'img': torch.rand(3, 64, 64, generator=g)}


class SlotAutoEncoder(BaseModel):

    def __init__(self, num_slots=7, slot_size=64):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(3, 64, 5, padding=2), nn.ReLU(), nn.Conv2d(64, slot_size, 5, padding=2))
        self.slots = nn.Parameter(torch.randn(num_slots, slot_size))
        self.decoder = nn.Conv2d(slot_size, 4, 3, padding=1)

    def forward(self, data_dict):
        feats = self.encoder(data_dict['img'])
        b, c, h, w = feats.shape
        attn = torch.einsum('bchw,kc->bkhw', feats, self.slots).softmax(dim=1)
        slot_feats = torch.einsum('bkhw,bchw->bkc', attn, feats)
        maps = self.decoder(slot_feats.reshape(-1, c, 1, 1).expand(-1, c, h, w)).reshape(b, -1, 4, h, w)
        rgb, masks = maps[:, :, :3], maps[:, :, 3:].softmax(dim=1)
        return {'recon_img': (rgb * masks).sum(dim=1), 'masks': masks}

    def calc_train_loss(self, data_dict, out_dict):
        return {'recon_loss': F.mse_loss(out_dict['recon_img'], data_dict['img'])}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--ddp', action='store_true')
    parser.add_argument('--fp16', action='store_true')
    args = parser.parse_args()
    local_rank = int(os.environ.get('LOCAL_RANK', 0))

    params = SimpleNamespace(max_epochs=100, print_iter=50, save_interval=0.5, clip_grad=0.05, lr=4e-4,
                             weight_decay=0.0, recon_loss_w=1.0)
    train_set, val_set = VideoFrames(50000), VideoFrames(2000)
    sampler = DistributedSampler(train_set, shuffle=True) if args.ddp else None
    datamodule = SimpleNamespace(
        train_loader=DataLoader(train_set, batch_size=64, sampler=sampler, shuffle=sampler is None,
                                num_workers=8, drop_last=True),
        val_loader=DataLoader(val_set, batch_size=64, num_workers=8),
    )
    method = BaseMethod(SlotAutoEncoder(), datamodule, params, ckp_path='checkpoint/savi',
                        local_rank=local_rank, use_ddp=args.ddp, use_fp16=args.fp16)
    method.fit()


if __name__ == '__main__':
    main()
