class LRScheduler(object):
    """Poly learning-rate policy, called with the global iteration number."""

    def __init__(self, mode, base_lr, nepochs, iters_per_epoch, power=0.9):
        self.mode = mode
        self.base_lr = base_lr
        self.total_iters = nepochs * iters_per_epoch
        self.power = power

    def __call__(self, cur_iter):
        if self.mode == 'poly':
            return self.base_lr * pow(1 - cur_iter / self.total_iters, self.power)
        raise NotImplementedError(self.mode)
