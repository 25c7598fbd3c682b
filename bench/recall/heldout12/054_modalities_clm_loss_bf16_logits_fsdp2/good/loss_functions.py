import torch
from torch import nn


class CLMCrossEntropyLoss(nn.Module):
    """Next-token cross-entropy over a batch of model outputs."""

    def __init__(self, target_key: str = "target_ids", prediction_key: str = "logits", ignore_index: int = -100):
        super().__init__()
        self.target_key = target_key
        self.prediction_key = prediction_key
        self.loss_fun = nn.CrossEntropyLoss(ignore_index=ignore_index)

    def forward(self, predictions: dict, batch: dict) -> torch.Tensor:
        logits = predictions[self.prediction_key]
        labels = batch[self.target_key]
        shift_logits = logits[:, :-1, :].contiguous()
        shift_labels = labels[:, 1:].contiguous()
        # FSDP2 mixed precision casts parameters only: upcast before the loss
        shift_logits = shift_logits.float()
        loss = self.loss_fun(shift_logits.view(-1, shift_logits.size(-1)), shift_labels.view(-1))
        return loss
