import logging
from enum import Enum, auto

import torch

logger = logging.getLogger(__name__)


class Stage(Enum):
    TRAIN = auto()
    VALID = auto()


class Brain:
    def __init__(self, modules, opt_class, hparams, run_opts=None):
        run_opts = run_opts or {}
        self.modules = torch.nn.ModuleDict(modules)
        self.hparams = hparams
        self.device = run_opts.get("device", "cpu")
        self.auto_mix_prec = run_opts.get("auto_mix_prec", False)
        self.max_grad_norm = run_opts.get("max_grad_norm", 5.0)
        self.nonfinite_patience = 3
        self.nonfinite_count = 0
        self.modules.to(self.device)
        self.optimizer = opt_class(self.modules.parameters())
        if self.auto_mix_prec:
            self.scaler = torch.amp.GradScaler("cuda")

    def compute_forward(self, batch, stage):
        raise NotImplementedError

    def compute_objectives(self, predictions, batch, stage):
        raise NotImplementedError

    def fit_batch(self, batch):
        if self.auto_mix_prec:
            self.optimizer.zero_grad()
            with torch.autocast("cuda"):
                outputs = self.compute_forward(batch, Stage.TRAIN)
                loss = self.compute_objectives(outputs, batch, Stage.TRAIN)
            self.scaler.scale(loss).backward()
            self.scaler.unscale_(self.optimizer)
            if self.check_gradients(loss):
                self.scaler.step(self.optimizer)
            self.scaler.update()
        else:
            outputs = self.compute_forward(batch, Stage.TRAIN)
            loss = self.compute_objectives(outputs, batch, Stage.TRAIN)
            loss.backward()
            if self.check_gradients(loss):
                self.optimizer.step()
            self.optimizer.zero_grad()
        return loss.detach().cpu()

    def check_gradients(self, loss):
        """Skip non-finite losses (with patience) and clip large gradients."""
        if not torch.isfinite(loss):
            self.nonfinite_count += 1
            logger.warning("Loss is %s.", loss)
            if self.nonfinite_count > self.nonfinite_patience:
                raise ValueError("Loss is not finite and patience is exhausted.")
            logger.warning("Patience not yet exhausted, ignoring this batch.")
            return False
        torch.nn.utils.clip_grad_norm_((p for p in self.modules.parameters()), self.max_grad_norm)
        return True

    def fit(self, epochs, train_set):
        for epoch in range(epochs):
            self.modules.train()
            avg_train_loss = 0.0
            for step, batch in enumerate(train_set, start=1):
                loss = self.fit_batch(batch)
                avg_train_loss += (float(loss) - avg_train_loss) / step
            logger.info("epoch %d train loss %.4f", epoch, avg_train_loss)
