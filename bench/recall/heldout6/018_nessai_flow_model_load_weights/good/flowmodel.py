import torch
from torch import nn


class FlowModel:
    def __init__(self, flow: nn.Module, device="cpu"):
        self.model = flow
        self.device = device
        self.weights_file = None

    def load_weights(self, weights_file):
        self.model.load_state_dict(torch.load(weights_file, weights_only=True))
        self.model.eval()
        self.weights_file = weights_file

    def reload_model(self, weights_file=None):
        self.load_weights(weights_file or self.weights_file)
