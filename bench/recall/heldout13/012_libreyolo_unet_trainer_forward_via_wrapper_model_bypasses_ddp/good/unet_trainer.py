import torch
import torch.nn as nn
import torch.nn.functional as F

from trainer import BaseTrainer

IGNORE_INDEX = 255


class UNetLoss(nn.Module):
    def __init__(self, ignore_index=IGNORE_INDEX, aux_weight=0.4):
        super().__init__()
        self.ignore_index = ignore_index
        self.aux_weight = aux_weight

    def forward(self, outputs, targets):
        main = F.cross_entropy(outputs["logits"], targets, ignore_index=self.ignore_index)
        aux = F.cross_entropy(outputs["aux_logits"], targets, ignore_index=self.ignore_index)
        return main + self.aux_weight * aux


class UNetTrainer(BaseTrainer):
    def __init__(self, *args, aux_weight=0.4, **kwargs):
        super().__init__(*args, **kwargs)
        self._criterion = UNetLoss(aux_weight=aux_weight)

    def on_forward(self, imgs, targets):
        outputs = self.model(imgs)
        loss = self._criterion(outputs, targets)
        return {"total_loss": loss, "seg_loss": loss.detach()}
