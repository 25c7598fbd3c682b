import torch
from torch.nn.parallel import DistributedDataParallel


class BaseTrainer:
    def __init__(self, model, optimizer, config):
        self.model = model
        self.optimizer = optimizer
        self.config = config
        self.epoch = 0
        if config.get("checkpoint"):
            self.load_pretrained(config["checkpoint"])
        if config.get("distributed"):
            self.model = DistributedDataParallel(self.model, device_ids=[config["local_rank"]])

    def load_pretrained(self, checkpoint_path):
        checkpoint = torch.load(checkpoint_path, map_location="cpu", weights_only=True)
        state_dict = {k[len("module."):] if k.startswith("module.") else k: v for k, v in checkpoint["state_dict"].items()}
        self.model.load_state_dict(state_dict)
        self.optimizer.load_state_dict(checkpoint["optimizer"])

    def save(self, path):
        torch.save(
            {
                "epoch": self.epoch,
                "state_dict": self.model.state_dict(),
                "optimizer": self.optimizer.state_dict(),
            },
            path,
        )
