import os
import shutil

import numpy as np
import torch

from .flows import configure_model


class FlowModel:
    """Wraps a normalising flow with its training loop and weight files."""

    def __init__(self, flow_config=None, training_config=None, output=None):
        self.flow_config = flow_config or {"n_inputs": 2}
        self.training_config = training_config or {"lr": 1e-3, "batch_size": 256, "max_epochs": 50}
        self.output = output or "."
        self.initialised = False
        self.weights_file = None
        self._model = None

    @property
    def model(self):
        return self._model

    @model.setter
    def model(self, model):
        self._model = model

    def initialise(self):
        self.device = torch.device(self.training_config.get("device_tag", "cpu"))
        self.model = configure_model(self.flow_config).to(self.device)
        self.optimiser = torch.optim.Adam(self.model.parameters(), lr=self.training_config["lr"])
        self.initialised = True

    def train(self, samples):
        if not self.initialised:
            self.initialise()
        data = torch.as_tensor(np.asarray(samples), dtype=torch.float32)
        loader = torch.utils.data.DataLoader(data, batch_size=self.training_config["batch_size"], shuffle=True)
        self.model.train()
        for _ in range(self.training_config["max_epochs"]):
            for x in loader:
                self.optimiser.zero_grad()
                loss = -self.model.log_prob(x.to(self.device)).mean()
                loss.backward()
                self.optimiser.step()
        self.model.eval()
        self.save_weights(os.path.join(self.output, "model.pt"))

    def save_weights(self, weights_file):
        if os.path.exists(weights_file):
            shutil.move(weights_file, weights_file + ".old")
        torch.save(self.model.state_dict(), weights_file)
        self.weights_file = weights_file

    def load_weights(self, weights_file):
        if not self.initialised:
            self.initialise()
        self.model.load_state_dict(torch.load(weights_file, weights_only=True))
        self.model.eval()
        self.weights_file = weights_file

    def reload_weights(self, weights_file=None):
        weights_file = weights_file or self.weights_file
        if weights_file is None:
            raise RuntimeError("No weights file to reload")
        self.load_weights(weights_file)
