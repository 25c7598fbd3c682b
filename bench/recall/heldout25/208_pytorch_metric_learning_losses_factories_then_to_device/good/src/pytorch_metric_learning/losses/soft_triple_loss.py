import torch
import torch.nn.functional as F

from ..distances import CosineSimilarity
from .base_metric_loss_function import BaseMetricLossFunction


class SoftTripleLoss(BaseMetricLossFunction):
    def __init__(self, num_classes, embedding_size, centers_per_class=10, la=20, gamma=0.1, margin=0.01, **kwargs):
        super().__init__(**kwargs)
        self.la = la
        self.gamma = 1.0 / gamma
        self.margin = margin
        self.num_classes = num_classes
        self.centers_per_class = centers_per_class
        self.fc = torch.nn.Parameter(torch.empty(embedding_size, num_classes * centers_per_class))
        torch.nn.init.kaiming_uniform_(self.fc, a=5**0.5)

    def compute_loss(self, embeddings, labels):
        dtype = embeddings.dtype
        sim_to_centers = self.distance(embeddings, self.fc.t())
        sim_to_centers = sim_to_centers.view(-1, self.num_classes, self.centers_per_class)
        prob = F.softmax(sim_to_centers * self.gamma, dim=2)
        sim_to_classes = torch.sum(prob * sim_to_centers, dim=2)
        margin = torch.zeros(sim_to_classes.shape, dtype=dtype, device=embeddings.device)
        margin[torch.arange(0, margin.shape[0]), labels] = self.margin
        return F.cross_entropy(self.la * (sim_to_classes - margin), labels, reduction="none")

    def get_default_distance(self):
        return CosineSimilarity()
