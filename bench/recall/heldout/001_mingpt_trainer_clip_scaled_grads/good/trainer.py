import torch


class Trainer:
    def __init__(self, model, optimizer, loader, grad_norm_clip=1.0, use_amp=True):
        self.model = model
        self.optimizer = optimizer
        self.loader = loader
        self.grad_norm_clip = grad_norm_clip
        self.use_amp = use_amp
        self.scaler = torch.amp.GradScaler("cuda", enabled=use_amp)

    def _run_batch(self, source, targets):
        with torch.autocast("cuda", dtype=torch.float16, enabled=self.use_amp):
            _, loss = self.model(source, targets)
        self.optimizer.zero_grad(set_to_none=True)
        self.scaler.scale(loss).backward()
        self.scaler.unscale_(self.optimizer)
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.grad_norm_clip)
        self.scaler.step(self.optimizer)
        self.scaler.update()
        return loss.item()

    def _run_epoch(self, epoch):
        self.loader.sampler.set_epoch(epoch)
        for source, targets in self.loader:
            self._run_batch(source, targets)
