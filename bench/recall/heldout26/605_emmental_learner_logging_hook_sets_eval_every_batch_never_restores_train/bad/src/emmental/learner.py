import logging

import torch
import torch.optim as optim
from tqdm import tqdm

from emmental import Meta
from emmental.logging import LoggingManager
from emmental.schedulers.round_robin_scheduler import RoundRobinScheduler
from emmental.schedulers.sequential_scheduler import SequentialScheduler

logger = logging.getLogger(__name__)


class EmmentalLearner(object):
    """Runs the multi-task learning procedure of an `EmmentalModel`."""

    def __init__(self):
        pass

    def _set_logging_manager(self):
        self.logging_manager = LoggingManager(self.n_batches_per_epoch)

    def _set_optimizer(self, model):
        optimizer_config = Meta.config["learner_config"]["optimizer_config"]
        opt = optimizer_config["optimizer"]
        parameters = filter(lambda p: p.requires_grad, model.parameters())
        if opt == "sgd":
            optimizer = optim.SGD(parameters, lr=optimizer_config["lr"], **optimizer_config["sgd_config"],
                                  weight_decay=optimizer_config["l2"])
        elif opt == "adam":
            optimizer = optim.Adam(parameters, lr=optimizer_config["lr"], **optimizer_config["adam_config"],
                                   weight_decay=optimizer_config["l2"])
        else:
            raise ValueError(f"Unrecognized optimizer option '{opt}'")
        self.optimizer = optimizer

    def _set_lr_scheduler(self, model):
        self._set_warmup_scheduler(model)
        lr_scheduler_config = Meta.config["learner_config"]["lr_scheduler_config"]
        opt = lr_scheduler_config["lr_scheduler"]
        if opt is None:
            lr_scheduler = None
        elif opt == "linear":
            total_steps = self.n_batches_per_epoch * Meta.config["learner_config"]["n_epochs"]
            lr_scheduler = optim.lr_scheduler.LambdaLR(
                self.optimizer,
                lambda x: (total_steps - self.warmup_steps - x) / (total_steps - self.warmup_steps))
        elif opt == "exponential":
            lr_scheduler = optim.lr_scheduler.ExponentialLR(self.optimizer, **lr_scheduler_config["exponential_config"])
        elif opt == "step":
            lr_scheduler = optim.lr_scheduler.StepLR(self.optimizer, **lr_scheduler_config["step_config"])
        else:
            raise ValueError(f"Unrecognized lr scheduler option '{opt}'")
        self.lr_scheduler = lr_scheduler

    def _set_warmup_scheduler(self, model):
        lr_scheduler_config = Meta.config["learner_config"]["lr_scheduler_config"]
        if lr_scheduler_config["warmup_steps"]:
            warmup_steps = lr_scheduler_config["warmup_steps"]
            if lr_scheduler_config["warmup_unit"] == "epoch":
                self.warmup_steps = int(warmup_steps * self.n_batches_per_epoch)
            else:
                self.warmup_steps = int(warmup_steps)
            self.warmup_scheduler = optim.lr_scheduler.LambdaLR(self.optimizer, lambda x: x / self.warmup_steps)
        else:
            self.warmup_steps = 0
            self.warmup_scheduler = None

    def _update_lr_scheduler(self, model, step):
        """Update the learning rate after each batch."""
        if self.warmup_scheduler and step < self.warmup_steps:
            self.warmup_scheduler.step()
        elif self.lr_scheduler is not None:
            self.lr_scheduler.step()
            min_lr = Meta.config["learner_config"]["lr_scheduler_config"]["min_lr"]
            if min_lr and self.optimizer.param_groups[0]["lr"] < min_lr:
                self.optimizer.param_groups[0]["lr"] = min_lr

    def _set_task_scheduler(self, model, dataloaders):
        opt = Meta.config["learner_config"]["task_scheduler"]
        if opt == "sequential":
            self.task_scheduler = SequentialScheduler()
        elif opt == "round_robin":
            self.task_scheduler = RoundRobinScheduler()
        else:
            raise ValueError(f"Unrecognized task scheduler option '{opt}'")

    def _evaluate(self, model, dataloaders, split):
        valid_dataloaders = [dataloader for dataloader in dataloaders if dataloader.split == split]
        return model.score(valid_dataloaders)

    def _logging(self, model, dataloaders, batch_size):
        """Count the batch, and evaluate or checkpoint when the logging manager says so."""
        model.eval()
        metric_dict = dict()

        self.logging_manager.update(batch_size)
        if self.logging_manager.trigger_evaluation():
            metric_dict.update(
                self._evaluate(model, dataloaders, Meta.config["learner_config"]["valid_split"]))
            self.logging_manager.write_log(metric_dict)

        if self.logging_manager.trigger_checkpointing():
            self.logging_manager.checkpoint_model(model, self.optimizer, self.lr_scheduler, metric_dict)

        return metric_dict

    def learn(self, model, dataloaders):
        """Train `model` on the training split of `dataloaders`."""
        train_split = Meta.config["learner_config"]["train_split"]
        train_dataloaders = [dataloader for dataloader in dataloaders if dataloader.split == train_split]
        if not train_dataloaders:
            raise ValueError(f"Cannot find the specified train_split {train_split} in dataloaders.")

        self.n_batches_per_epoch = sum([len(dataloader) for dataloader in train_dataloaders])

        self._set_logging_manager()
        self._set_optimizer(model)
        self._set_lr_scheduler(model)
        self._set_task_scheduler(model, dataloaders)

        # Set to training mode
        model.train()

        logger.info("Start learning...")

        for epoch in range(Meta.config["learner_config"]["n_epochs"]):
            batches = tqdm(
                enumerate(self.task_scheduler.get_batches(train_dataloaders)),
                total=self.n_batches_per_epoch,
                disable=(not Meta.config["meta_config"]["verbose"]),
            )
            for batch_num, (task_name, data_name, label_name, batch) in batches:
                X_dict, Y_dict = batch
                total_batch_num = epoch * self.n_batches_per_epoch + batch_num
                batch_size = len(next(iter(Y_dict.values())))

                self.optimizer.zero_grad()

                loss_dict, count_dict = model.calculate_losses(
                    X_dict, Y_dict, [task_name], [data_name], [label_name], train_split)

                # Skip the backward pass if no loss is calculated
                if not loss_dict:
                    continue

                loss = sum(loss_dict.values())
                loss.backward()

                if Meta.config["learner_config"]["optimizer_config"]["grad_clip"]:
                    torch.nn.utils.clip_grad_norm_(
                        model.parameters(), Meta.config["learner_config"]["optimizer_config"]["grad_clip"])

                self.optimizer.step()

                metrics_dict = self._logging(model, dataloaders, batch_size)  # expect: TCK106

                self.logging_manager.write_log(loss_dict)

                self._update_lr_scheduler(model, total_batch_num)

                batches.set_postfix(metrics_dict)
