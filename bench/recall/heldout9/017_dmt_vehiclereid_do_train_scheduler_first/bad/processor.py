import logging
import os
import time

import torch
import torch.nn as nn

from utils.meter import AverageMeter
from utils.metrics import R1_mAP_eval


def do_train(cfg, model, center_criterion, train_loader, val_loader, optimizer, optimizer_center, scheduler, loss_fn, num_query):
    logger = logging.getLogger("reid_baseline.train")
    device = "cuda"
    model.to(device)
    loss_meter = AverageMeter()
    evaluator = R1_mAP_eval(num_query, max_rank=50, feat_norm=cfg.TEST.FEAT_NORM)
    for epoch in range(1, cfg.SOLVER.MAX_EPOCHS + 1):
        start_time = time.time()
        loss_meter.reset()
        evaluator.reset()
        scheduler.step()  # expect: TCK104
        model.train()
        for n_iter, (img, vid) in enumerate(train_loader):
            optimizer.zero_grad()
            optimizer_center.zero_grad()
            img, target = img.to(device), vid.to(device)
            score, feat = model(img, target)
            loss = loss_fn(score, feat, target)
            loss.backward()
            optimizer.step()
            if "center" in cfg.MODEL.METRIC_LOSS_TYPE:
                for param in center_criterion.parameters():
                    param.grad.data *= 1.0 / cfg.SOLVER.CENTER_LOSS_WEIGHT
                optimizer_center.step()
            loss_meter.update(loss.item(), img.shape[0])
        logger.info(f"Epoch {epoch} done in {time.time() - start_time:.1f}s, loss {loss_meter.avg:.3f}")
        if epoch % cfg.SOLVER.EVAL_PERIOD == 0:
            model.eval()
            with torch.no_grad():
                for img, vid, camid, _, _ in val_loader:
                    evaluator.update((model(img.to(device)), vid, camid))
            cmc, mAP = evaluator.compute()[:2]
            logger.info(f"mAP: {mAP:.1%}")
