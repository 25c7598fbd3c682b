import torch
import torch.nn as nn
import torch.nn.functional as F


class DropoutWrapper(nn.Module):
    """Dropout that can share one mask across the time dimension (variational dropout)."""

    def __init__(self, dropout_p=0.0, enable_vbp=True):
        super().__init__()
        self.enable_variational_dropout = enable_vbp
        self.dropout_p = dropout_p

    def forward(self, x):
        if not self.training or self.dropout_p == 0:
            return x
        if x.dim() == 3 and self.enable_variational_dropout:
            keep = 1.0 - self.dropout_p
            mask = torch.bernoulli(x.new_full((x.size(0), x.size(2)), keep)) / keep
            return mask.unsqueeze(1) * x
        return F.dropout(x, p=self.dropout_p, training=self.training)
