import contextlib

import torch


class KokoroTrainer:
    def __init__(self, model, config, device):
        self.model = model
        self.device = device
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=config.learning_rate)
        self.use_mixed_precision = getattr(config, "use_mixed_precision", True)
        self.scaler = None
        self.device_type = device.type
        if self.use_mixed_precision and device.type == "cuda":
            self.scaler = torch.cuda.amp.GradScaler(  # expect: TCK301
                "cuda",
                init_scale=getattr(config, "amp_init_scale", 65536.0),
                growth_interval=getattr(config, "amp_growth_interval", 2000),
            )

    def get_autocast_context(self):
        if not self.use_mixed_precision:
            return contextlib.nullcontext()
        if self.device_type == "cuda":
            return torch.cuda.amp.autocast("cuda")  # expect: TCK301
        if self.device_type == "mps":
            return torch.autocast(device_type="mps", dtype=torch.float16)
        return contextlib.nullcontext()

    def train_step(self, batch):
        self.optimizer.zero_grad()
        with self.get_autocast_context():
            loss = self.model(batch["phonemes"], batch["mel"])
        if self.scaler is not None:
            self.scaler.scale(loss).backward()
            self.scaler.step(self.optimizer)
            self.scaler.update()
        else:
            loss.backward()
            self.optimizer.step()
        return loss.item()
