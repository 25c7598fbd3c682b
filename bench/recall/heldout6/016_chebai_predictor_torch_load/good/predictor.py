import torch
from torch import nn


class ChebaiPredictor:
    def __init__(self, model: nn.Module, device="cpu"):
        self.model = model
        self.device = device

    def load_checkpoint(self, path):
        checkpoint = torch.load(path, map_location=torch.device(self.device), weights_only=False)
        self.model.load_state_dict(checkpoint["state_dict"])
        self.model.eval()
        return checkpoint.get("epoch")
