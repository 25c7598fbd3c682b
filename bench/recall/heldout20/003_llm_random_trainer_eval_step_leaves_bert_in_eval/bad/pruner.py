import torch


class BasePruner:
    """Keeps the prunable feed-forward layers and the auxiliary loss they contribute."""

    def __init__(self):
        self.layers = []

    def register(self, layer):
        self.layers.append(layer)

    def prune(self, prob):
        for layer in self.layers:
            layer.prune(prob)

    def after_backprop(self, step):
        for layer in self.layers:
            if hasattr(layer, "after_backprop"):
                layer.after_backprop(step)

    def get_auxiliary_loss(self):
        losses = {}
        for i, layer in enumerate(self.layers):
            if hasattr(layer, "auxiliary_loss"):
                losses[f"aux_{i}"] = layer.auxiliary_loss()
        if not losses:
            losses["aux"] = torch.zeros((), requires_grad=True)
        return losses


class BaseScheduler:
    def __init__(self, every, prob):
        self.every = every
        self.prob = prob

    def is_time_to_prune(self, step):
        return step > 0 and step % self.every == 0
