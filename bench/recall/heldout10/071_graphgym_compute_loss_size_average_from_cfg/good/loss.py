import torch
import torch.nn as nn
import torch.nn.functional as F

from config import cfg


def compute_loss(pred, true):
    """Returns the loss and the normalised prediction score."""
    bce_loss = nn.BCEWithLogitsLoss(reduction=cfg.model.size_average)
    mse_loss = nn.MSELoss(reduction=cfg.model.size_average)

    if true.ndim > 1 and cfg.model.loss_fun == "cross_entropy":
        pred, true = torch.flatten(pred), torch.flatten(true)
    pred = pred.squeeze(-1) if pred.ndim > 1 else pred
    true = true.squeeze(-1) if true.ndim > 1 else true

    if cfg.model.loss_fun == "cross_entropy":
        if pred.ndim > 1:
            pred = F.log_softmax(pred, dim=-1)
            return F.nll_loss(pred, true), pred
        true = true.float()
        return bce_loss(pred, true), torch.sigmoid(pred)
    if cfg.model.loss_fun == "mse":
        true = true.float()
        return mse_loss(pred, true), pred
    raise ValueError("Loss func {} not supported".format(cfg.model.loss_fun))
