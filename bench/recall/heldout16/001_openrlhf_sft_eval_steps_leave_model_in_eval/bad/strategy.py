import torch
import torch.distributed as dist


class Strategy:
    """Minimal stand-in for the project's distributed training strategy."""

    def __init__(self, max_norm=1.0):
        self.max_norm = max_norm

    def backward(self, loss, model, optimizer):
        loss.backward()

    def optimizer_step(self, optimizer, model, scheduler):
        torch.nn.utils.clip_grad_norm_(model.parameters(), self.max_norm)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()

    def all_reduce(self, logs):
        if not dist.is_initialized():
            return logs
        out = {}
        for k, v in logs.items():
            t = torch.tensor(v, device="cuda")
            dist.all_reduce(t)
            out[k] = t.item() / dist.get_world_size()
        return out

    def is_rank_0(self):
        return not dist.is_initialized() or dist.get_rank() == 0
