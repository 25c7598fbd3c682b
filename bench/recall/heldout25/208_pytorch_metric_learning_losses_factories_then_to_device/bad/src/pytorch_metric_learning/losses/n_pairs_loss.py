import torch

from ..distances import DotProductSimilarity
from ..utils import loss_and_miner_utils as lmu
from .base_metric_loss_function import BaseMetricLossFunction


class NPairsLoss(BaseMetricLossFunction):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.cross_entropy = torch.nn.CrossEntropyLoss(reduction="none")

    def compute_loss(self, embeddings, labels):
        anchor_idx, positive_idx = lmu.convert_to_pos_pairs_with_unique_labels(labels)
        self.num_pairs = len(anchor_idx)
        if self.num_pairs == 0:
            return None
        anchors, positives = embeddings[anchor_idx], embeddings[positive_idx]
        targets = torch.arange(self.num_pairs).to(embeddings.device)  # expect: TCK201
        sim_mat = self.distance(anchors, positives)
        if not self.distance.is_inverted:
            sim_mat = -sim_mat
        return self.cross_entropy(sim_mat, targets)

    def get_default_distance(self):
        return DotProductSimilarity()
