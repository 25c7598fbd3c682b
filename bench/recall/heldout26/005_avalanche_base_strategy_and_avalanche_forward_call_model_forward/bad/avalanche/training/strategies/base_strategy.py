from typing import Optional, Sequence

import torch
from torch.nn import Module
from torch.optim import Optimizer
from torch.utils.data import DataLoader

from avalanche.models import DynamicModule
from avalanche.models.dynamic_modules import MultiTaskModule


class BaseStrategy:
    """Continual-learning training loop; plugins hook into every phase of it."""

    def __init__(self, model: Module, optimizer: Optimizer, criterion=torch.nn.CrossEntropyLoss(),
                 train_mb_size: int = 1, train_epochs: int = 1, eval_mb_size: int = 1,
                 device=None, plugins: Optional[Sequence] = None):
        self.model: Module = model
        self.optimizer = optimizer
        self._criterion = criterion
        self.train_mb_size = train_mb_size
        self.train_epochs = train_epochs
        self.eval_mb_size = eval_mb_size
        self.device = device if device is not None else torch.device("cpu")
        self.plugins = [] if plugins is None else list(plugins)
        self.training_exp_counter = 0
        self.experience = None
        self.dataloader = None
        self.mbatch = None
        self.mb_pred = None
        self.loss = None

    @property
    def mb_x(self):
        return self.mbatch[0]

    @property
    def mb_y(self):
        return self.mbatch[1]

    @property
    def mb_task_id(self):
        return self.mbatch[-1]

    def criterion(self):
        return self._criterion(self.mb_pred, self.mb_y)

    def train(self, experiences, **kwargs):
        self.model.train()
        self.model.to(self.device)
        if not isinstance(experiences, Sequence):
            experiences = [experiences]
        for self.experience in experiences:
            self.train_exp(self.experience, **kwargs)
            self.training_exp_counter += 1

    def train_exp(self, experience, **kwargs):
        self.model.train()
        self.model_adaptation()
        self.optimizer.state.clear()
        self.dataloader = DataLoader(experience.dataset, batch_size=self.train_mb_size, shuffle=True)
        for _ in range(self.train_epochs):
            self.training_epoch(**kwargs)
        for p in self.plugins:
            p.after_training_exp(self, **kwargs)

    @torch.no_grad()
    def eval(self, exp_list, **kwargs):
        self.model.eval()
        for self.experience in exp_list:
            self.dataloader = DataLoader(self.experience.dataset, batch_size=self.eval_mb_size)
            self.eval_epoch(**kwargs)

    def _unpack_minibatch(self):
        self.mbatch = [t.to(self.device) for t in self.mbatch]

    def training_epoch(self, **kwargs):
        for self.mb_it, self.mbatch in enumerate(self.dataloader):
            self._unpack_minibatch()
            self.optimizer.zero_grad()
            self.loss = 0

            self.mb_pred = self.forward()
            self.loss += self.criterion()

            for p in self.plugins:
                p.before_backward(self, **kwargs)
            self.loss.backward()
            self.optimizer.step()

    def eval_epoch(self, **kwargs):
        for self.mb_it, self.mbatch in enumerate(self.dataloader):
            self._unpack_minibatch()
            self.mb_pred = self.forward()
            self.loss = self.criterion()

    def model_adaptation(self):
        for module in self.model.modules():
            if isinstance(module, DynamicModule):
                module.adaptation(self.experience.dataset)
        self.model = self.model.to(self.device)

    def forward(self):
        if isinstance(self.model, MultiTaskModule):
            return self.model.forward(self.mb_x, self.mb_task_id)  # expect: TCK105
        else:  # no task labels
            return self.model.forward(self.mb_x)  # expect: TCK105
