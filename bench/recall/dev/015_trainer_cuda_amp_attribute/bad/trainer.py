import torch
from torch.nn.parallel import DistributedDataParallel


class Trainer:
    def __init__(self, args, model, optimizer, rank):
        self.args = args
        self.rank = rank
        self.model = DistributedDataParallel(model, device_ids=[rank])
        self.optimizer = optimizer
        self.scaler = torch.cuda.amp.GradScaler()  # expect: TCK301

    def train_step(self, batch):
        dtype = torch.float16 if self.args.precision == "float16" else torch.float32
        with torch.cuda.amp.autocast(dtype=dtype):  # expect: TCK301
            out = self.model(batch)
        self.scaler.scale(out["loss"]).backward()
        self.scaler.unscale_(self.optimizer)
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.args.gradient_clip_val)
        self.scaler.step(self.optimizer)
        self.scaler.update()
        self.optimizer.zero_grad()
