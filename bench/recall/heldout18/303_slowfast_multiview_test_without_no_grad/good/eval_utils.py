import os
import time

import torch
from torch.utils.data import Dataset


class MultiViewClips(Dataset):
    """Each video is expanded into num_clips x num_crops views, stored as pre-decoded tensors."""

    def __init__(self, root, num_clips, num_crops):
        self.files = sorted(f for f in os.listdir(root) if f.endswith(".pt"))
        self.root = root
        self.views = num_clips * num_crops

    def __len__(self):
        return len(self.files) * self.views

    def __getitem__(self, idx):
        vid, view = divmod(idx, self.views)
        item = torch.load(os.path.join(self.root, self.files[vid]), weights_only=True)
        meta = {"boxes": item["boxes"], "ori_boxes": item["boxes"].clone(), "metadata": torch.tensor([vid, view])}
        return item["frames"][view], item["label"], vid, meta


class TestMeter:
    def __init__(self, num_videos, num_views, num_classes):
        self.scores = torch.zeros(num_videos, num_classes)
        self.labels = torch.zeros(num_videos, dtype=torch.long)
        self.num_views = num_views
        self.t0 = self.t1 = 0.0

    def iter_tic(self):
        self.t0 = time.perf_counter()

    def iter_toc(self):
        self.t1 = time.perf_counter()

    def update_stats(self, preds, labels, video_idx):
        if preds.dim() == 2 and labels.dim() == 1:
            for p, y, v in zip(preds, labels, video_idx):
                self.scores[v] += p
                self.labels[v] = y

    def log_iter_stats(self, cur_iter):
        if cur_iter % 20 == 0:
            print(f"iter {cur_iter} time {self.t1 - self.t0:.3f}s")

    def finalize_metrics(self):
        top1 = (self.scores.argmax(1) == self.labels).float().mean().item()
        print(f"top1 {top1:.4f}")

    def reset(self):
        self.scores.zero_()
