from torch.optim.lr_scheduler import LRScheduler


class PolynomialLRWarmup(LRScheduler):
    """Linear warm-up followed by polynomial decay, stepped once per optimizer update."""

    def __init__(self, optimizer, warmup_iters, total_iters, power=1.0, last_epoch=-1):
        self.warmup_iters = warmup_iters
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        step = self.last_epoch
        if step < self.warmup_iters:
            factor = (step + 1) / self.warmup_iters
        else:
            progress = min(step, self.total_iters) - self.warmup_iters
            factor = (1.0 - progress / max(1, self.total_iters - self.warmup_iters)) ** self.power
        return [base_lr * factor for base_lr in self.base_lrs]
