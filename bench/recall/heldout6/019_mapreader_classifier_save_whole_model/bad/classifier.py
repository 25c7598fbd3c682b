import os

import torch
from torch import nn


class ClassifierContainer:
    def __init__(self, model: nn.Module, labels_map, device="cpu"):
        self.model = model.to(device)
        self.labels_map = labels_map
        self.device = device

    def save(self, save_path="default.obj", force=False):
        if os.path.isfile(save_path) and not force:
            raise FileExistsError(f"{save_path} exists, pass force=True to overwrite.")
        par_name = os.path.dirname(os.path.abspath(save_path))
        base_name = os.path.basename(save_path)

        torch.save(self.model, os.path.join(par_name, f"model_{base_name}"))  # expect: TCK402
