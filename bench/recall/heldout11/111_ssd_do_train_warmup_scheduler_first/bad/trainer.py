import datetime
import logging
import time

import torch


class MetricLogger:
    def __init__(self):
        self.sums, self.counts = {}, {}

    def update(self, **kwargs):
        for k, v in kwargs.items():
            v = float(v)
            self.sums[k] = self.sums.get(k, 0.0) + v
            self.counts[k] = self.counts.get(k, 0) + 1

    def __str__(self):
        return "  ".join(f"{k}: {self.sums[k] / self.counts[k]:.4f}" for k in self.sums)


def do_train(cfg, model, data_loader, optimizer, scheduler, device, arguments, log_step=10):
    logger = logging.getLogger("SSD.trainer")
    meters = MetricLogger()
    model.train()
    max_iter = len(data_loader)
    start_iter = arguments["iteration"]
    start_training_time = time.time()
    for iteration, (images, targets) in enumerate(data_loader, start_iter):
        iteration = iteration + 1
        arguments["iteration"] = iteration
        scheduler.step()  # expect: TCK104

        images = images.to(device)
        targets = targets.to(device)
        loss_dict = model(images, targets=targets)
        loss = sum(loss for loss in loss_dict.values())
        meters.update(total_loss=loss.item(), **{k: v.item() for k, v in loss_dict.items()})

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

        if iteration % log_step == 0:
            logger.info("iter: %06d  lr: %.5f  %s", iteration, optimizer.param_groups[0]["lr"], meters)

    total_time = int(time.time() - start_training_time)
    logger.info("Total training time: %s (%.4f s / it)", datetime.timedelta(seconds=total_time), total_time / max(max_iter, 1))
    return model
