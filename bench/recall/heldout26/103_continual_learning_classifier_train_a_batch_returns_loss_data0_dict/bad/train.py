import copy

import torch
from torch.utils.data import DataLoader

import utils


def train_cl(model, train_datasets, replay_mode="none", classes_per_task=None, iters=2000, batch_size=32,
             loss_cbs=()):
    """Train `model` on each task in turn; with `replay_mode == "exact"` replay stored samples of earlier tasks."""
    cuda = model._is_on_cuda()
    device = model._device() if hasattr(model, "_device") else ("cuda" if cuda else "cpu")
    previous_model = None
    exemplars = []

    for task, train_dataset in enumerate(train_datasets, 1):
        data_loader = iter(DataLoader(train_dataset, batch_size=batch_size, shuffle=True, drop_last=True))
        active_classes = list(range(classes_per_task * task)) if classes_per_task else None
        for batch_index in range(1, iters + 1):
            try:
                x, y = next(data_loader)
            except StopIteration:
                data_loader = iter(DataLoader(train_dataset, batch_size=batch_size, shuffle=True, drop_last=True))
                x, y = next(data_loader)
            x, y = x.to(device), y.to(device)

            x_ = y_ = scores_ = None
            if replay_mode == "exact" and exemplars:
                x_, y_ = utils.sample_exemplars(exemplars, batch_size, device)
                with torch.no_grad():
                    scores_ = previous_model(x_)

            loss_dict = model.train_a_batch(x, y, x_=x_, y_=y_, scores_=scores_, rnt=1.0 / task,
                                            active_classes=active_classes)
            for loss_cb in loss_cbs:
                loss_cb(batch_index, loss_dict, task=task)

        if model.ewc_lambda > 0:
            model.estimate_fisher(train_dataset)
        if replay_mode == "exact":
            exemplars.append(utils.select_exemplars(train_dataset, n=200))
        previous_model = copy.deepcopy(model).eval()
