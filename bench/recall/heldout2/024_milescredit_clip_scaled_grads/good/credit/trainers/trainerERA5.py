import torch
from torch.cuda.amp import GradScaler
from torch.distributed.fsdp.sharded_grad_scaler import ShardedGradScaler


class Trainer:
    def __init__(self, model, rank, conf):
        self.model = model
        self.rank = rank
        self.conf = conf

    def train_one_epoch(self, epoch, trainloader, optimizer, criterion, metrics):
        amp = self.conf["trainer"]["amp"]
        grad_max_norm = self.conf["trainer"].get("grad_max_norm", 0.0)
        distributed = self.conf["trainer"]["mode"] in ["fsdp", "ddp"]
        scaler = ShardedGradScaler(enabled=amp) if distributed else GradScaler(enabled=amp)
        self.model.train()
        for batch in trainloader:
            x = batch["x"].to(self.rank)
            y = batch["y"].to(self.rank)
            with torch.autocast(device_type="cuda", enabled=amp):
                y_pred = self.model(x)
                loss = criterion(y.float(), y_pred.float()).mean()
            scaler.scale(loss).backward()
            if distributed:
                torch.distributed.barrier()
            if grad_max_norm > 0:
                scaler.unscale_(optimizer)
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), max_norm=grad_max_norm)
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
