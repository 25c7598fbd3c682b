import torch
import torch.nn as nn


class VoteNetLite(nn.Module):
    """Tiny stand-in for a point-cloud detector: per-point features, votes, box scores."""

    def __init__(self, num_classes=10, feat_dim=128):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv1d(3, 64, 1), nn.BatchNorm1d(64), nn.ReLU(),
            nn.Conv1d(64, feat_dim, 1), nn.BatchNorm1d(feat_dim), nn.ReLU(),
        )
        self.vote = nn.Conv1d(feat_dim, 3, 1)
        self.cls_head = nn.Linear(feat_dim, num_classes)

    def forward(self, inputs):
        points = inputs["point_clouds"].transpose(1, 2)
        feats = self.backbone(points)
        votes = self.vote(feats).transpose(1, 2)
        logits = self.cls_head(feats.max(dim=2).values)
        return {"votes": votes, "sem_cls_scores": logits}


def get_loss(end_points, batch):
    vote_loss = (end_points["votes"] - batch["vote_label"]).abs().mean()
    cls_loss = nn.functional.cross_entropy(end_points["sem_cls_scores"], batch["sem_cls_label"])
    end_points["vote_loss"] = vote_loss
    end_points["cls_loss"] = cls_loss
    end_points["loss"] = vote_loss + cls_loss
    return end_points["loss"], end_points
