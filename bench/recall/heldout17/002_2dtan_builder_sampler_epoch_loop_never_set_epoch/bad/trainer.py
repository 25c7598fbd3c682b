import logging

import torch
import torch.distributed as dist


def reduce_loss(loss):
    if not dist.is_initialized() or dist.get_world_size() < 2:
        return loss
    with torch.no_grad():
        dist.reduce(loss, dst=0)
        if dist.get_rank() == 0:
            loss /= dist.get_world_size()
    return loss


def do_train(model, data_loader, optimizer, scheduler, checkpointer, device, max_epoch, start_epoch=1):
    logger = logging.getLogger("tan.trainer")
    model.train()
    for epoch in range(start_epoch, max_epoch + 1):
        max_iteration = len(data_loader)
        for iteration, ((feats, queries), targets, _) in enumerate(data_loader, start=1):
            feats, queries, targets = feats.to(device), queries.to(device), targets.to(device)

            def closure():
                optimizer.zero_grad()
                loss = model(feats, queries, targets)
                loss.backward()
                return loss

            loss = optimizer.step(closure)
            if iteration % 20 == 0 or iteration == max_iteration:
                logger.info("epoch %d iter %d/%d loss %.4f", epoch, iteration, max_iteration,
                            reduce_loss(loss.detach()).item())
        scheduler.step()
        checkpointer(epoch)
