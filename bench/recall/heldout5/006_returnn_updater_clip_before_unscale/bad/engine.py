import torch

from updater import Updater


class Engine:
    def __init__(self, model, config, use_amp=True):
        self.model = model
        self.updater = Updater(model, config)
        self._amp_dtype = torch.float16 if use_amp else None
        self._grad_scaler = torch.amp.GradScaler("cuda") if use_amp else None

    def train_epoch(self, data_loader):
        for batch in data_loader:
            self.updater.optimizer.zero_grad()
            with torch.autocast("cuda", dtype=self._amp_dtype, enabled=self._amp_dtype is not None):
                loss = self.model(**batch)
            if self._grad_scaler is not None:
                self._grad_scaler.scale(loss).backward()
            else:
                loss.backward()
            self.updater.step(grad_scaler=self._grad_scaler)
