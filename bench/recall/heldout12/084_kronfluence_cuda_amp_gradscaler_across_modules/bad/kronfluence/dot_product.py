from typing import List

import torch
from torch import autocast, nn
from torch.cuda.amp import GradScaler  # expect: TCK301
from torch.utils import data


def compute_dot_products_with_loader(model: nn.Module, task, train_loader: data.DataLoader,
                                     preconditioned: List[torch.Tensor], scaler: GradScaler,
                                     amp_dtype, device) -> torch.Tensor:
    params = [p for p in model.parameters() if p.requires_grad]
    scores = []
    for batch in train_loader:
        batch = [t.to(device) for t in batch]
        model.zero_grad(set_to_none=True)
        with autocast(device_type=device.type, enabled=amp_dtype is not None, dtype=amp_dtype):
            loss = task.compute_train_loss(batch=batch, model=model, sample=False)
        scaler.scale(loss).backward()
        inv_scale = 1.0 / scaler.get_scale() if scaler.is_enabled() else 1.0
        score = sum((p.grad * q).sum() for p, q in zip(params, preconditioned)) * inv_scale
        scores.append(score.detach().cpu())
    return torch.stack(scores)
