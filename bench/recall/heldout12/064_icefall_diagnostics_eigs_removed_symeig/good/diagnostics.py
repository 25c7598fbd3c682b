import torch
from torch import nn


class TensorDiagnostic:
    """Accumulates statistics of one tensor (activation or gradient) of one module."""

    def __init__(self, name, stats_types=("abs", "rms", "eigs")):
        self.name = name
        self.stats_types = stats_types
        self.stats = {t: None for t in stats_types}
        self.count = 0

    def accumulate(self, x):
        x = x.detach().float().reshape(-1, x.shape[-1])
        self.count += 1
        for stats_type in self.stats_types:
            if stats_type == "abs":
                value = x.abs().mean(dim=0)
            elif stats_type == "rms":
                value = (x ** 2).mean(dim=0)
            else:
                value = x.t() @ x / x.shape[0]
            self.stats[stats_type] = value if self.stats[stats_type] is None else self.stats[stats_type] + value

    def print_diagnostics(self):
        for stats_type, stats in self.stats.items():
            if stats is None:
                continue
            stats = stats / self.count
            if stats_type == "eigs":
                try:
                    eigs = torch.linalg.eigh(stats).eigenvalues
                    stats = eigs.abs().sqrt()
                except Exception:
                    print("Error getting eigenvalues, trying another method.")
                    eigs = torch.linalg.eigvals(stats)
                    stats = eigs.abs().sqrt()
            elif stats_type == "rms":
                stats = stats.sqrt()
            summary = ", ".join(f"{v:.3g}" for v in stats.sort(descending=True).values[:5].tolist())
            print(f"module={self.name}, type={stats_type}, top5=[{summary}]")


def attach_diagnostics(model: nn.Module):
    diagnostics = {}

    def make_hook(name):
        diagnostics[name] = TensorDiagnostic(name + ".output")

        def hook(module, inputs, output):
            if isinstance(output, torch.Tensor):
                diagnostics[name].accumulate(output)

        return hook

    for name, module in model.named_modules():
        if name:
            module.register_forward_hook(make_hook(name))
    return diagnostics
