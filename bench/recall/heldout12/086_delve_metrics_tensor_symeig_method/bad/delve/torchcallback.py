import torch
import torch.nn as nn

from delve.metrics import compute_diag_trace, compute_saturation


class CovarianceTracker:
    def __init__(self, model: nn.Module):
        self.stats = {}
        self.handles = []
        for name, layer in model.named_modules():
            if isinstance(layer, nn.Linear):
                self.handles.append(layer.register_forward_hook(self._make_hook(name)))

    def _make_hook(self, name):
        def hook(module, inputs, output):
            if module.training:
                return
            acts = output.detach().flatten(0, -2).double()
            total, sq, n = self.stats.get(name, (0.0, 0.0, 0))
            self.stats[name] = (total + acts.sum(0), sq + acts.T @ acts, n + acts.shape[0])
        return hook

    def covariances(self):
        for name, (total, sq, n) in self.stats.items():
            mean = total / n
            yield name, sq / n - torch.outer(mean, mean)

    def report(self):
        return {name: {"saturation": compute_saturation(cov), "trace": compute_diag_trace(cov)}
                for name, cov in self.covariances()}

    def reset(self):
        self.stats.clear()
