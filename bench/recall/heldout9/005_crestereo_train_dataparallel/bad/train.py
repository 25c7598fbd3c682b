import os

import torch
import torch.nn as nn
import torch.optim as optim
from torch.utils.data import DataLoader, RandomSampler

from dataset import CREStereoDataset
from nets import Model


def sequence_loss(flow_preds, flow_gt, valid, gamma=0.8):
    total = 0.0
    for i, pred in enumerate(flow_preds):
        weight = gamma ** (len(flow_preds) - i - 1)
        total += weight * (valid.unsqueeze(1) * (pred - flow_gt).abs()).mean()
    return total


def train(args, world_size):
    model = Model(max_disp=args.max_disp, mixed_precision=args.mixed_precision, test_mode=False)
    model = nn.DataParallel(model, device_ids=[i for i in range(world_size)])  # expect: TCK204
    model.cuda()
    optimizer = optim.Adam(model.parameters(), lr=0.1, betas=(0.9, 0.999))

    dataset = CREStereoDataset(args.training_data_path)
    sampler = RandomSampler(dataset, replacement=False)
    loader = DataLoader(dataset, sampler=sampler, batch_size=args.batch_size * world_size, drop_last=True, pin_memory=True)

    for epoch in range(1, args.n_total_epoch + 1):
        model.train()
        for batch in loader:
            left, right = batch["left"].cuda(), batch["right"].cuda()
            gt_disp, valid = batch["disparity"].cuda(), batch["mask"].cuda()
            gt_disp = gt_disp.unsqueeze(1)
            gt_flow = torch.cat([gt_disp, gt_disp * 0], dim=1)
            optimizer.zero_grad()
            loss = sequence_loss(model(left, right), gt_flow, valid)
            loss.backward()
            optimizer.step()
        torch.save({"state_dict": model.module.state_dict(), "epoch": epoch}, os.path.join(args.log_dir, "latest.pth"))
