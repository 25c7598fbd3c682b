import copy

import torch
import torch.nn as nn


class SimpleNN(nn.Module):
    def __init__(self, in_features: int = 64, hidden: int = 256, out_features: int = 1) -> None:
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(in_features, hidden), nn.GELU(), nn.Dropout(0.1), nn.Linear(hidden, out_features)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x).squeeze(-1)


class ModelEma(nn.Module):
    def __init__(self, model: nn.Module, decay: float = 0.9998) -> None:
        super().__init__()
        self.module = copy.deepcopy(model).eval()
        self.decay = decay
        for p in self.module.parameters():
            p.requires_grad_(False)

    @torch.no_grad()
    def update(self, model: nn.Module) -> None:
        for ema_v, v in zip(self.module.state_dict().values(), model.state_dict().values()):
            if ema_v.dtype.is_floating_point:
                ema_v.mul_(self.decay).add_(v.detach(), alpha=1 - self.decay)
            else:
                ema_v.copy_(v)


def get_model(model_name: str, model_params: dict) -> tuple[nn.Module, ModelEma]:
    if model_name == "SimpleNN":
        model = SimpleNN(**model_params)
        return model, ModelEma(model)
    raise ValueError(f"Unknown model name: {model_name}")
