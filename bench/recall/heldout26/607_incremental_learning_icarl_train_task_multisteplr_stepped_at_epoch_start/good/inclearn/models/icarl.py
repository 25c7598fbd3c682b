import collections
import pdb

import numpy as np
import torch
from torch.nn import functional as F
from tqdm import tqdm

from inclearn.lib import factory, network, utils
from inclearn.models.base import IncrementalLearner

EPSILON = 1e-8


class ICarl(IncrementalLearner):
    """iCaRL: Incremental Classifier and Representation Learning (Rebuffi et al., 2017)."""

    def __init__(self, args):
        super().__init__()
        self._device = args["device"]
        self._opt_name = args["optimizer"]
        self._lr = args["lr"]
        self._weight_decay = args["weight_decay"]
        self._n_epochs = args["epochs"]

        self._scheduling = args["scheduling"]
        self._lr_decay = args["lr_decay"]

        self._memory_size = args["memory_size"]
        self._n_classes = 0

        self._network = network.BasicNet(
            args["convnet"],
            convnet_kwargs=args.get("convnet_config", {}),
            device=self._device,
            use_bias=True,
            extract_no_act=True,
            classifier_no_act=False,
        )

        self._examplars = {}
        self._class_means = None
        self._old_model = None

    def eval(self):
        self._network.eval()

    def train(self):
        self._network.train()

    # ----------
    # Public API
    # ----------

    def _before_task(self, train_loader, val_loader):
        self._n_classes += self._task_size
        self._network.add_classes(self._task_size)

        self._optimizer = factory.get_optimizer(
            self._network.parameters(), self._opt_name, self._lr, self._weight_decay)

        self._scheduler = torch.optim.lr_scheduler.MultiStepLR(
            self._optimizer, self._scheduling, gamma=self._lr_decay)

    def _train_task(self, train_loader, val_loader):
        for epoch in range(self._n_epochs):
            self._metrics = collections.defaultdict(float)

            prog_bar = tqdm(train_loader)
            for i, (inputs, targets, memory_flags) in enumerate(prog_bar, start=1):
                self._optimizer.zero_grad()

                loss = self._forward_loss(inputs, targets, memory_flags)
                loss.backward()

                self._optimizer.step()

                self._print_metrics(prog_bar, epoch, i)

            self._scheduler.step()

    def _print_metrics(self, prog_bar, epoch, nb_batches):
        pretty_metrics = ", ".join(
            "{}: {}".format(name, round(value / nb_batches, 3)) for name, value in self._metrics.items())
        prog_bar.set_description("T{}/{}, E{}/{} => {}".format(
            self._task + 1, self._n_tasks, epoch + 1, self._n_epochs, pretty_metrics))

    def _forward_loss(self, inputs, targets, memory_flags):
        inputs, targets = inputs.to(self._device), targets.to(self._device)
        onehot_targets = utils.to_onehot(targets, self._n_classes).to(self._device)
        logits = self._network(inputs)

        loss = self._compute_loss(inputs, logits, targets, onehot_targets, memory_flags)
        if not utils._check_loss(loss):
            pdb.set_trace()

        self._metrics["loss"] += loss.item()
        return loss

    def _compute_loss(self, inputs, logits, targets, onehot_targets, memory_flags):
        if self._old_model is None:
            return F.binary_cross_entropy_with_logits(logits, onehot_targets)
        old_targets = torch.sigmoid(self._old_model(inputs).detach())
        new_targets = onehot_targets.clone()
        new_targets[..., :-self._task_size] = old_targets
        return F.binary_cross_entropy_with_logits(logits, new_targets)

    def _after_task(self, inc_dataset):
        self.build_examplars(inc_dataset)
        self._old_model = self._network.copy().freeze()
        self._network.on_task_end()

    def _eval_task(self, data_loader):
        features, targets = utils.extract_features(self._network, data_loader)
        features = features / (np.linalg.norm(features, axis=1, keepdims=True) + EPSILON)
        distances = ((features[:, None, :] - self._class_means[None, :, :]) ** 2).sum(-1)
        return np.argmin(distances, axis=1), targets

    @property
    def _memory_per_class(self):
        return self._memory_size // self._n_classes

    def build_examplars(self, inc_dataset):
        """Keep, for every class seen so far, the samples closest to the class mean (nearest-mean herding)."""
        self._examplars = {}
        means = []
        for class_idx in range(self._n_classes):
            inputs, loader = inc_dataset.get_custom_loader(class_idx, mode="test")
            features, _ = utils.extract_features(self._network, loader)
            features = features / (np.linalg.norm(features, axis=1, keepdims=True) + EPSILON)
            mean = features.mean(axis=0)
            order = np.argsort(((features - mean) ** 2).sum(-1))[:self._memory_per_class]
            self._examplars[class_idx] = inputs[order]
            means.append(mean / (np.linalg.norm(mean) + EPSILON))
        self._class_means = np.stack(means)

    def get_memory(self):
        data, targets = [], []
        for class_idx, examplars in self._examplars.items():
            data.append(examplars)
            targets.extend([class_idx] * len(examplars))
        return np.concatenate(data), np.array(targets)
