import torch
from torch.distributed.fsdp.sharded_grad_scaler import ShardedGradScaler


class PrecisionPlugin:
    """Picks the loss scaler that matches the backend the run uses."""

    def __init__(self, backend="cuda", fp16=True, sharded=False, **scaler_kwargs):
        self.backend = backend
        self.fp16 = fp16
        self.scaler = None
        if not fp16:
            return
        if sharded:
            self.scaler = ShardedGradScaler(**scaler_kwargs)
        elif backend == "cpu":
            self.scaler = torch.amp.GradScaler("cpu", **scaler_kwargs)
        else:
            self.scaler = torch.amp.GradScaler("cuda", **scaler_kwargs)

    def autocast(self):
        return torch.autocast(self.backend, dtype=torch.float16, enabled=self.fp16)

    def backward(self, loss):
        if self.scaler is not None:
            self.scaler.scale(loss).backward()
        else:
            loss.backward()

    def step(self, optimizer):
        if self.scaler is not None:
            self.scaler.step(optimizer)
            self.scaler.update()
        else:
            optimizer.step()
