import torch


class BaseMetricLossFunction(torch.nn.Module):
    """Computes per-element losses with `compute_loss` and reduces them to a scalar."""

    def __init__(self, distance=None):
        super().__init__()
        self.distance = distance if distance is not None else self.get_default_distance()

    def get_default_distance(self):
        raise NotImplementedError

    def zero_loss(self, embeddings):
        return torch.sum(embeddings * 0)

    def forward(self, embeddings, labels):
        losses = self.compute_loss(embeddings, labels)
        if losses is None:
            return self.zero_loss(embeddings)
        return losses.mean()
