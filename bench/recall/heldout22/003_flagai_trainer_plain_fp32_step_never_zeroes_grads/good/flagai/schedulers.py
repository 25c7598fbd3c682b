import math

from torch.optim.lr_scheduler import _LRScheduler


class AnnealingLR(_LRScheduler):
    """Linear warm-up then cosine decay, stepped once per iteration."""

    def __init__(self, optimizer, start_lr, warmup_iter, num_iters, decay_style="cosine", last_iter=-1):
        self.start_lr = start_lr
        self.warmup_iter = warmup_iter
        self.end_iter = num_iters
        self.decay_style = decay_style
        super().__init__(optimizer, last_epoch=last_iter)

    def get_lr(self):
        it = self.last_epoch
        if self.warmup_iter > 0 and it <= self.warmup_iter:
            lr = self.start_lr * it / self.warmup_iter
        else:
            progress = min(1.0, (it - self.warmup_iter) / max(1, self.end_iter - self.warmup_iter))
            lr = self.start_lr * (math.cos(math.pi * progress) + 1) / 2
        return [lr for _ in self.optimizer.param_groups]
