import logging
import os

import torch
from torch.utils.tensorboard import SummaryWriter

from emmental.meta import Meta

logger = logging.getLogger(__name__)


class LoggingManager(object):
    """Counts seen samples/batches/epochs and decides when to evaluate and checkpoint."""

    def __init__(self, n_batches_per_epoch):
        self.n_batches_per_epoch = n_batches_per_epoch
        config = Meta.config["logging_config"]
        self.counter_unit = config["counter_unit"]
        self.evaluation_freq = config["evaluation_freq"]
        self.checkpointing = config["checkpointing"]
        self.checkpoint_freq = config["checkpointer_config"]["checkpoint_freq"] * self.evaluation_freq
        self.sample_count = self.batch_count = 0
        self.sample_total = self.batch_total = self.epoch_total = 0
        self.unit_total = 0
        self.evaluation_count = self.checkpoint_count = 0
        self.writer = SummaryWriter(Meta.log_path)

    def update(self, batch_size):
        self.sample_count += batch_size
        self.sample_total += batch_size
        self.batch_count += 1
        self.batch_total += 1
        self.epoch_total = self.batch_total / self.n_batches_per_epoch
        if self.counter_unit == "sample":
            self.unit_total = self.sample_total
        elif self.counter_unit == "batch":
            self.unit_total = self.batch_total
        else:
            self.unit_total = self.epoch_total

    def trigger_evaluation(self):
        satisfied = self.unit_total - self.evaluation_count >= self.evaluation_freq
        if satisfied:
            self.evaluation_count += self.evaluation_freq
        return satisfied

    def trigger_checkpointing(self):
        if not self.checkpointing:
            return False
        satisfied = self.unit_total - self.checkpoint_count >= self.checkpoint_freq
        if satisfied:
            self.checkpoint_count += self.checkpoint_freq
        return satisfied

    def write_log(self, metric_dict):
        for metric_name, metric_value in metric_dict.items():
            self.writer.add_scalar(metric_name, metric_value, self.unit_total)

    def checkpoint_model(self, model, optimizer, lr_scheduler, metric_dict):
        path = os.path.join(Meta.log_path, "checkpoint_{}.pth".format(self.unit_total))
        torch.save({
            "model": model.state_dict(),
            "optimizer": optimizer.state_dict(),
            "lr_scheduler": lr_scheduler.state_dict() if lr_scheduler else None,
            "metric_dict": metric_dict,
        }, path)
        logger.info("Saved checkpoint %s", path)
