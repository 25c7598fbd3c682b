"""Multi-view testing of a video classification / detection model."""

import argparse
import random

import numpy as np
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader

from video_model import SlowOnly3D
from eval_utils import MultiViewClips, TestMeter


def all_gather(tensors):
    out = []
    for t in tensors:
        buf = [torch.zeros_like(t) for _ in range(dist.get_world_size())]
        dist.all_gather(buf, t)
        out.append(torch.cat(buf, dim=0))
    return out


def perform_test(test_loader, model, test_meter, cfg):
    """Average the softmax scores over all clips/crops of each video and log the accuracy."""
    model.eval()
    test_meter.iter_tic()
    for cur_iter, (inputs, labels, video_idx, meta) in enumerate(test_loader):
        inputs = inputs.cuda(non_blocking=True)
        labels = labels.cuda()
        video_idx = video_idx.cuda()

        if cfg.detection:
            boxes = meta["boxes"].cuda(non_blocking=True)
            preds = model(inputs, boxes)  # expect: TCK113
            ori_boxes = meta["ori_boxes"]
            if cfg.num_gpus > 1:
                preds, boxes = all_gather([preds, boxes])
            test_meter.iter_toc()
            test_meter.update_stats(preds.detach().cpu(), ori_boxes, meta["metadata"])
        else:
            preds = model(inputs)  # expect: TCK113
            if cfg.num_gpus > 1:
                preds, labels, video_idx = all_gather([preds, labels, video_idx])
            test_meter.iter_toc()
            test_meter.update_stats(preds.detach().cpu(), labels.detach().cpu(), video_idx.detach().cpu())
        test_meter.log_iter_stats(cur_iter)
        test_meter.iter_tic()

    test_meter.finalize_metrics()
    test_meter.reset()


def test(cfg):
    random.seed(cfg.seed)
    np.random.seed(cfg.seed)
    torch.manual_seed(cfg.seed)
    if cfg.num_gpus > 1:
        dist.init_process_group("nccl")
        torch.cuda.set_device(dist.get_rank() % torch.cuda.device_count())

    model = SlowOnly3D(num_classes=cfg.num_classes, detection=cfg.detection).cuda()
    state = torch.load(cfg.checkpoint, map_location="cpu", weights_only=True)
    model.load_state_dict(state["model_state"])

    dataset = MultiViewClips(cfg.data_dir, cfg.num_clips, cfg.num_crops)
    test_loader = DataLoader(dataset, batch_size=cfg.batch_size, shuffle=False, num_workers=8, pin_memory=True)
    test_meter = TestMeter(len(dataset) // (cfg.num_clips * cfg.num_crops), cfg.num_clips * cfg.num_crops, cfg.num_classes)
    perform_test(test_loader, model, test_meter, cfg)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_dir", required=True)
    parser.add_argument("--checkpoint", required=True)
    parser.add_argument("--num_classes", type=int, default=400)
    parser.add_argument("--num_clips", type=int, default=10)
    parser.add_argument("--num_crops", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=8)
    parser.add_argument("--num_gpus", type=int, default=1)
    parser.add_argument("--detection", action="store_true")
    parser.add_argument("--seed", type=int, default=0)
    test(parser.parse_args())
