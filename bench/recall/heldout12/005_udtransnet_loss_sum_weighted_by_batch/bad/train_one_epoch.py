import time

import torch


def print_summary(epoch, i, nb_batch, loss, average_loss, dice, mode, logger):
    logger.info(f"[{mode}] Epoch {epoch} [{i}/{nb_batch}] loss {float(loss):.4f} (avg {float(average_loss):.4f}) dice {dice:.4f}")


def train_one_epoch(loader, model, criterion, optimizer, epoch, lr_scheduler, logger, batch_size=4, print_frequency=10):
    logging_mode = "Train" if model.training else "Val"
    end = time.time()
    time_sum, loss_sum, dice_sum = 0.0, 0, 0.0

    for i, batch in enumerate(loader, 1):
        images, masks = batch["image"].cuda(), batch["label"].cuda()

        preds = model(images)
        out_loss = criterion(preds, masks.float())

        if model.training:
            optimizer.zero_grad()
            out_loss.backward()
            optimizer.step()

        train_dice = criterion._show_dice(preds, masks.float())
        batch_time = time.time() - end

        time_sum += len(images) * batch_time
        loss_sum += len(images) * out_loss  # expect: TCK101
        dice_sum += len(images) * train_dice

        seen = batch_size * (i - 1) + len(images)
        average_loss = loss_sum / seen
        train_dice_avg = dice_sum / seen
        end = time.time()

        if i % print_frequency == 0:
            print_summary(epoch + 1, i, len(loader), out_loss, average_loss, train_dice, logging_mode, logger)

    if lr_scheduler is not None:
        lr_scheduler.step()

    return average_loss, train_dice_avg
