import glob
import os

import torch

from .base import FlowModel
from .flows import configure_model


class ImportanceFlowModel(FlowModel):
    """Keeps one flow per importance-sampling level."""

    def __init__(self, flow_config=None, training_config=None, output=None):
        super().__init__(flow_config=flow_config, training_config=training_config, output=output)
        self.weights_files = []
        self.models = torch.nn.ModuleList()

    @property
    def model(self):
        return self.models[-1] if len(self.models) else None

    @model.setter
    def model(self, model):
        if model is not None:
            self.models.append(model)

    def save_weights(self, weights_file):
        super().save_weights(weights_file)
        self.weights_files.append(self.weights_file)

    def load_all_weights(self):
        """Rebuild every flow from its weights file (used when resuming a run)."""
        self.models = torch.nn.ModuleList()
        self.device = torch.device(self.training_config.get("device_tag", "cpu"))
        for wf in self.weights_files:
            new_flow = configure_model(self.flow_config)
            new_flow.device = self.device
            new_flow.load_state_dict(torch.load(wf, weights_only=True))
            self.models.append(new_flow)
        self.models.eval()

    def update_weights_path(self, weights_path, n=None):
        files = sorted(glob.glob(os.path.join(weights_path, "level_*", "model.pt")))
        self.weights_files = files[:n] if n is not None else files
