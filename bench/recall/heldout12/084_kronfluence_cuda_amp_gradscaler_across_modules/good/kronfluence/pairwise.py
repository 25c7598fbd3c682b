import torch
from torch import autocast, nn
from torch.amp import GradScaler
from torch.utils import data

from kronfluence.dot_product import compute_dot_products_with_loader


def compute_pairwise_scores(model: nn.Module, task, query_loader: data.DataLoader, train_loader: data.DataLoader,
                            inverse_factors, score_args, device):
    enable_amp = score_args.amp_dtype is not None
    enable_grad_scaler = enable_amp and score_args.amp_dtype == torch.float16
    scaler = GradScaler("cuda", init_scale=score_args.amp_scale, enabled=enable_grad_scaler)

    all_scores = []
    params = [p for p in model.parameters() if p.requires_grad]
    for batch in query_loader:
        batch = [t.to(device) for t in batch]
        model.zero_grad(set_to_none=True)
        with autocast(device_type=device.type, enabled=enable_amp, dtype=score_args.amp_dtype):
            loss = task.compute_measurement(batch=batch, model=model)
        scaler.scale(loss).backward()
        inv_scale = 1.0 / scaler.get_scale() if enable_grad_scaler else 1.0
        preconditioned = [inverse_factors[i] @ (p.grad * inv_scale).flatten() for i, p in enumerate(params)]
        preconditioned = [g.view_as(p) for g, p in zip(preconditioned, params)]
        all_scores.append(compute_dot_products_with_loader(model, task, train_loader, preconditioned, scaler,
                                                           score_args.amp_dtype, device))
    return torch.stack(all_scores)
