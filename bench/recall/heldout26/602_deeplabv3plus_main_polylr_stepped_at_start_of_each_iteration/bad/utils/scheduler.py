from torch.optim.lr_scheduler import _LRScheduler


class PolyLR(_LRScheduler):
    """Polynomial decay over a fixed number of iterations, floored at `min_lr`."""

    def __init__(self, optimizer, max_iters, power=0.9, last_epoch=-1, min_lr=1e-6):
        self.power = power
        self.max_iters = max_iters
        self.min_lr = min_lr
        super(PolyLR, self).__init__(optimizer, last_epoch)

    def get_lr(self):
        factor = (1 - self.last_epoch / self.max_iters) ** self.power
        return [max(base_lr * factor, self.min_lr) for base_lr in self.base_lrs]
