import datetime
import logging
import time

import torch


def do_train(model, data_loader, optimizer, scheduler, device, log_step=10, save_step=2500, output_dir="outputs"):
    logger = logging.getLogger("SSD.trainer")
    logger.info("Start training ...")
    model.train()
    max_iter = len(data_loader)
    start_training_time = time.time()

    for iteration, (images, targets) in enumerate(data_loader, 1):
        images = images.to(device)
        targets = targets.to(device)
        loss_dict = model(images, targets=targets)
        loss = sum(loss for loss in loss_dict.values())

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()

        if iteration % log_step == 0:
            logger.info("iter: %06d lr: %.5f loss: %.4f", iteration, optimizer.param_groups[0]["lr"], loss.item())
        if iteration % save_step == 0:
            torch.save(model.state_dict(), f"{output_dir}/model_{iteration:06d}.pth")

    total = int(time.time() - start_training_time)
    logger.info("Total training time: %s (%.4f s / it)", datetime.timedelta(seconds=total), total / max_iter)
    return model
