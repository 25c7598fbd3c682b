import torch

from config import BatchNormConfig, DropoutConfig, MlpConfig
from mlp import Mlp


class MultiTaskRanker(torch.nn.Module):
    def __init__(self, in_features: int, tasks=("fav", "reply", "retweet")):
        super().__init__()
        cfg = MlpConfig(layer_sizes=[512, 256, 1], batch_norm=BatchNormConfig(), dropout=DropoutConfig(0.1))
        self.towers = torch.nn.ModuleDict({task: Mlp(in_features, cfg) for task in tasks})

    def forward(self, x: torch.Tensor) -> dict:
        return {task: tower(x)["output"].squeeze(-1) for task, tower in self.towers.items()}


def train_step(model: MultiTaskRanker, optimizer, features, labels: dict):
    model.train()
    logits = model(features)
    loss = sum(
        torch.nn.functional.binary_cross_entropy_with_logits(logits[task], labels[task].float()) for task in logits
    )
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()
