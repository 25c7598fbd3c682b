import logging

import torch


class BaseTrainer:
    def __init__(self, model, config, amp: bool = False, cpu: bool = False):
        self.config = config
        self.cpu = cpu
        self.device = torch.device("cpu" if cpu else "cuda")
        self.model = model.to(self.device)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=config["optim"]["lr_initial"])
        self.clip_grad_norm = config["optim"].get("clip_grad_norm")
        self.scaler = torch.GradScaler("cuda") if amp and not self.cpu else None
        self.step = 0
        self.epoch = 0

    def save(self, path):
        torch.save(
            {
                "epoch": self.epoch,
                "step": self.step,
                "state_dict": self.model.state_dict(),
                "optimizer": self.optimizer.state_dict(),
                "amp": self.scaler.state_dict() if self.scaler else None,
            },
            path,
        )

    def load_checkpoint(self, path):
        checkpoint = torch.load(path, map_location=self.device, weights_only=True)
        self.model.load_state_dict(checkpoint["state_dict"])
        self.optimizer.load_state_dict(checkpoint["optimizer"])
        self.epoch, self.step = checkpoint["epoch"], checkpoint["step"]
        if self.scaler and checkpoint["amp"]:
            self.scaler.load_state_dict(checkpoint["amp"])

    def _backward(self, loss) -> None:
        self.optimizer.zero_grad()
        loss.backward()
        if self.scaler:
            self.scaler.unscale_(self.optimizer)
        if self.clip_grad_norm:
            grad_norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), max_norm=self.clip_grad_norm)
            logging.debug(f"grad_norm {grad_norm:.3f}")
        if self.scaler:
            self.scaler.step(self.optimizer)
            self.scaler.update()
        else:
            self.optimizer.step()
