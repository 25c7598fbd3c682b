import torch


class Engine:
    def __init__(self, model, optimizer, grad_clip=None, use_amp=True):
        self._model = model
        self._optimizer = optimizer
        self._grad_clip = grad_clip
        self._grad_scaler = torch.amp.GradScaler("cuda") if use_amp else None

    def train_step(self, batch):
        with torch.autocast("cuda", dtype=torch.float16, enabled=self._grad_scaler is not None):
            loss = self._model(batch)
        self._optimizer.zero_grad()
        if self._grad_scaler is not None:
            self._grad_scaler.scale(loss).backward()
            if self._grad_clip:
                torch.nn.utils.clip_grad_norm_(self._model.parameters(), self._grad_clip)  # expect: TCK305
            self._grad_scaler.step(self._optimizer)
            self._grad_scaler.update()
        else:
            loss.backward()
            if self._grad_clip:
                torch.nn.utils.clip_grad_norm_(self._model.parameters(), self._grad_clip)
            self._optimizer.step()
        return loss.detach()
