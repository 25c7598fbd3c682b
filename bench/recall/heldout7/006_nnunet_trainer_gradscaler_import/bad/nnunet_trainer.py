import torch
from torch import autocast, nn
from torch.cuda.amp import GradScaler  # expect: TCK301


class nnUNetTrainer(object):
    def __init__(self, plans, configuration, fold, device=torch.device("cuda")):
        self.device = device
        self.network = None
        self.optimizer = None
        self.lr_scheduler = None
        self.loss = None
        self.grad_scaler = GradScaler() if self.device.type == "cuda" else None

    def train_step(self, batch):
        data = batch["data"].to(self.device, non_blocking=True)
        target = batch["target"].to(self.device, non_blocking=True)
        self.optimizer.zero_grad(set_to_none=True)
        with autocast(self.device.type, enabled=True):
            output = self.network(data)
            l = self.loss(output, target)
        if self.grad_scaler is not None:
            self.grad_scaler.scale(l).backward()
            self.grad_scaler.unscale_(self.optimizer)
            torch.nn.utils.clip_grad_norm_(self.network.parameters(), 12)
            self.grad_scaler.step(self.optimizer)
            self.grad_scaler.update()
        else:
            l.backward()
            torch.nn.utils.clip_grad_norm_(self.network.parameters(), 12)
            self.optimizer.step()
        return {"loss": l.detach().cpu().numpy()}
