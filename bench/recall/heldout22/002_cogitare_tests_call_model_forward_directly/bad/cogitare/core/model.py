from abc import ABCMeta, abstractmethod
from collections import OrderedDict

import numpy as np
import torch
from torch import nn

from cogitare.core.plugin_interface import PluginInterface


class Model(nn.Module, metaclass=ABCMeta):
    """nn.Module with a built-in training loop (`learn`) and a plugin/hook system."""

    valid_hooks = ("on_start", "on_start_epoch", "on_start_batch", "on_end_batch",
                   "on_end_epoch", "on_end", "before_backward", "before_step", "on_stop_training")

    def __init__(self):
        super().__init__()
        self._state = {}
        self._plugins = {name: OrderedDict() for name in self.valid_hooks}

    @abstractmethod
    def forward(self, data):
        pass

    @abstractmethod
    def loss(self, output, data):
        pass

    def register_plugin(self, plugin, hook, name=None):
        if hook not in self.valid_hooks:
            raise ValueError("Expected on of the following hooks: " + ", ".join(self.valid_hooks))
        wrapped = PluginInterface(plugin, name)
        self._plugins[hook][wrapped.name] = wrapped

    def hook(self, name):
        for plugin_name, plugin in self._plugins[name].items():
            self._state[name + "_" + plugin_name] = plugin(**self._state)

    def _forward_batch(self, batch, optimizer):
        optimizer.zero_grad()
        output = self.forward(batch)
        loss = self.loss(output, batch)
        self._state["output"] = output
        self.hook("before_backward")
        loss.backward()
        self.hook("before_step")
        optimizer.step()
        return loss.item()

    def learn(self, dataset, optimizer, max_epochs=50):
        self.train()
        self.hook("on_start")
        for epoch in range(1, max_epochs + 1):
            self._state["current_epoch"] = epoch
            losses = []
            for idx, sample in enumerate(dataset, 1):
                self._state["current_batch"] = idx
                self.hook("on_start_batch")
                losses.append(self._forward_batch(sample, optimizer))
                self.hook("on_end_batch")
            self._state["loss_mean"] = float(np.mean(losses))
            self.hook("on_end_epoch")
        self.hook("on_end")
        return True

    def predict(self, *args, **kwargs):
        was_training = self.training
        self.eval()
        with torch.no_grad():
            out = self.forward(*args, **kwargs)
        self.train(was_training)
        return out

    def metric_loss(self, output, sample):
        return self.loss(output, sample).item()

    def evaluate(self, dataset):
        was_training = self.training
        self.eval()
        with torch.no_grad():
            losses = [self.loss(self.forward(sample), sample).item() for sample in dataset]
        self.train(was_training)
        return losses
