import os

import torch
import torch.distributed as dist
import torch.optim as optim
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from dataset import CREStereoDataset
from nets import Model


def sequence_loss(flow_preds, flow_gt, valid, gamma=0.8):
    total = 0.0
    for i, pred in enumerate(flow_preds):
        weight = gamma ** (len(flow_preds) - i - 1)
        total += weight * (valid.unsqueeze(1) * (pred - flow_gt).abs()).mean()
    return total


def train_dist(args, local_rank):
    torch.cuda.set_device(local_rank)
    dist.init_process_group(backend="nccl")
    model = Model(max_disp=args.max_disp, mixed_precision=args.mixed_precision, test_mode=False)
    model = torch.nn.SyncBatchNorm.convert_sync_batchnorm(model).to(local_rank)
    model = DDP(model, device_ids=[local_rank], output_device=local_rank)
    optimizer = optim.Adam(model.parameters(), lr=0.1, betas=(0.9, 0.999))

    dataset = CREStereoDataset(args.training_data_path)
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, sampler=sampler, batch_size=args.batch_size, drop_last=True, pin_memory=True)

    for epoch in range(1, args.n_total_epoch + 1):
        sampler.set_epoch(epoch)
        model.train()
        for batch in loader:
            left, right = batch["left"].to(local_rank), batch["right"].to(local_rank)
            gt_disp, valid = batch["disparity"].to(local_rank), batch["mask"].to(local_rank)
            gt_disp = gt_disp.unsqueeze(1)
            gt_flow = torch.cat([gt_disp, gt_disp * 0], dim=1)
            optimizer.zero_grad()
            loss = sequence_loss(model(left, right), gt_flow, valid)
            loss.backward()
            optimizer.step()
        if dist.get_rank() == 0:
            torch.save({"state_dict": model.module.state_dict(), "epoch": epoch}, os.path.join(args.log_dir, "latest.pth"))
