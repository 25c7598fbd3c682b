class OptimizerCallback:
    def __init__(self, optimizer, grad_clip_fn=None):
        self.optimizer = optimizer
        self.grad_clip_fn = grad_clip_fn

    def on_batch_end(self, state):
        if not state.need_backward:
            return
        self.optimizer.zero_grad()
        state.loss.backward()
        if self.grad_clip_fn is not None:
            for group in self.optimizer.param_groups:
                self.grad_clip_fn(group["params"])
        self.optimizer.step()
