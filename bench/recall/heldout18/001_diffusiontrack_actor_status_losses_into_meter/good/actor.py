import torch
import torch.nn as nn


class TrackerNet(nn.Module):
    def __init__(self, dim=64):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, dim))
        self.box_head = nn.Linear(dim, 4)
        self.cls_head = nn.Linear(dim, 1)

    def forward(self, search):
        feat = self.backbone(search)
        return self.box_head(feat), self.cls_head(feat).squeeze(-1)


class DiffusionActor:
    """Runs the network on a batch and turns its outputs into a weighted loss."""

    def __init__(self, net, weights):
        self.net = net
        self.weights = weights

    def __call__(self, data):
        boxes, logits = self.net(data["search"])
        return self.compute_losses(boxes, logits, data)

    def compute_losses(self, boxes, logits, data):
        loss_dict = {
            "l1": nn.functional.l1_loss(boxes, data["gt_boxes"]),
            "giou": (1.0 - torch.cosine_similarity(boxes, data["gt_boxes"], dim=-1)).mean(),
            "cls": nn.functional.binary_cross_entropy_with_logits(logits, data["labels"]),
        }
        weighted = {k: v * self.weights[k] for k, v in loss_dict.items()}
        total = sum(weighted.values())
        status = {k: v.item() for k, v in loss_dict.items()}
        status["total_loss"] = total.detach().item()
        return total, status
