import os

import torch


class AverageMeter:
    def __init__(self):
        self.val = 0
        self.avg = 0
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum = self.sum + val * n
        self.count += n
        self.avg = self.sum / self.count


def save_checkpoint(states, is_best, output_dir, filename="checkpoint.pth.tar"):
    torch.save(states, os.path.join(output_dir, filename))
    if is_best and "best_state_dict" in states:
        torch.save(states["best_state_dict"], os.path.join(output_dir, "model_best.pth.tar"))
