import torch


class AMPEngine:
    """Owns the GradScaler; callbacks go through it for backward and step."""

    def __init__(self):
        self.scaler = torch.amp.GradScaler("cuda")

    def autocast(self):
        return torch.autocast("cuda", dtype=torch.float16)

    def backward_loss(self, loss, model, optimizer):
        self.scaler.scale(loss).backward()

    def optimizer_step(self, loss, model, optimizer):
        self.scaler.step(optimizer)
        self.scaler.update()

    def zero_grad(self, loss, model, optimizer):
        optimizer.zero_grad(set_to_none=True)


class OptimizerCallback:
    def __init__(self, accumulation_steps=1, max_grad_norm=None):
        self.accumulation_steps = accumulation_steps
        self.max_grad_norm = max_grad_norm
        self._counter = 0

    def on_batch_end(self, runner):
        self._counter += 1
        need_step = self._counter % self.accumulation_steps == 0
        runner.engine.backward_loss(runner.loss, runner.model, runner.optimizer)
        if self.max_grad_norm is not None:
            torch.nn.utils.clip_grad_norm_(runner.model.parameters(), self.max_grad_norm)  # expect: TCK305
        if need_step:
            runner.engine.optimizer_step(runner.loss, runner.model, runner.optimizer)
            runner.engine.zero_grad(runner.loss, runner.model, runner.optimizer)
