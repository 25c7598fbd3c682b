from abc import ABC

import torch


class LudwigModule(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self._losses = {}

    def losses(self):
        return list(self._losses.values())


class Combiner(LudwigModule, ABC):
    def __init__(self, input_features):
        super().__init__()
        self.input_features = input_features
