import torch
import torch.nn as nn
import torch.nn.functional as F


class triplet_loss(nn.Module):
    def __init__(self, loss_reduction="mean"):
        super().__init__()
        self.loss = nn.CrossEntropyLoss(reduction=loss_reduction)

    def forward(self, outputs, target):
        n_vertices = outputs.shape[-1]
        flat = outputs.view(-1, n_vertices)
        return self.loss(flat, target.view(-1))
