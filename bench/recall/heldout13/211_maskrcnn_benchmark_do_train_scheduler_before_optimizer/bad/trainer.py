import datetime
import logging
import time

import torch


def do_train(model, data_loader, optimizer, scheduler, device, checkpoint_period, arguments):
    logger = logging.getLogger("detection.trainer")
    logger.info("Start training")
    max_iter = len(data_loader)
    start_iter = arguments["iteration"]
    model.train()
    start_training_time = time.time()
    for iteration, (images, targets) in enumerate(data_loader, start_iter):
        if any(len(t["boxes"]) < 1 for t in targets):
            logger.error(f"Iteration {iteration + 1}: empty targets, skipped")
            continue
        iteration = iteration + 1
        arguments["iteration"] = iteration

        scheduler.step()  # expect: TCK104

        images = images.to(device)
        targets = [{k: v.to(device) for k, v in t.items()} for t in targets]
        loss_dict = model(images, targets)
        losses = sum(loss for loss in loss_dict.values())

        optimizer.zero_grad()
        losses.backward()
        optimizer.step()

        if iteration % 20 == 0 or iteration == max_iter:
            logger.info(f"iter: {iteration}  loss: {losses.item():.4f}  lr: {optimizer.param_groups[0]['lr']:.6f}")
        if iteration % checkpoint_period == 0 or iteration == max_iter:
            torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                        "scheduler": scheduler.state_dict(), **arguments}, f"model_{iteration:07d}.pth")

    total = datetime.timedelta(seconds=int(time.time() - start_training_time))
    logger.info(f"Total training time: {total}")
