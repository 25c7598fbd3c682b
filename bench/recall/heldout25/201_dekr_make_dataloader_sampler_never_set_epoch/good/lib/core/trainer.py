import logging
import time

from lib.utils.utils import AverageMeter


def do_train(cfg, model, data_loader, loss_factory, optimizer, epoch, writer_dict):
    logger = logging.getLogger("Training")
    batch_time = AverageMeter()
    heatmap_loss_meter = AverageMeter()
    offset_loss_meter = AverageMeter()

    model.train()
    end = time.time()
    for i, (image, heatmap, mask, offset, offset_w) in enumerate(data_loader):
        pheatmap, poffset = model(image.cuda(non_blocking=True))

        heatmap = heatmap.cuda(non_blocking=True)
        mask = mask.cuda(non_blocking=True)
        offset = offset.cuda(non_blocking=True)
        offset_w = offset_w.cuda(non_blocking=True)

        heatmap_loss, offset_loss = loss_factory(pheatmap, poffset, heatmap, mask, offset, offset_w)
        loss = heatmap_loss + offset_loss
        heatmap_loss_meter.update(heatmap_loss.detach(), image.size(0))
        offset_loss_meter.update(offset_loss.detach(), image.size(0))

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

        batch_time.update(time.time() - end)
        end = time.time()

        if i % cfg.PRINT_FREQ == 0 and cfg.RANK == 0:
            logger.info(
                f"Epoch: [{epoch}][{i}/{len(data_loader)}] time {batch_time.avg:.3f}s "
                f"heatmaps {float(heatmap_loss_meter.avg):.3e} offset {float(offset_loss_meter.avg):.3e}"
            )
            writer_dict["writer"].add_scalar("train_heatmap_loss", float(heatmap_loss_meter.avg), writer_dict["train_global_steps"])
            writer_dict["train_global_steps"] += 1
