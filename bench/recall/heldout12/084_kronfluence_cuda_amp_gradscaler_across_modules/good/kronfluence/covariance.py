import torch
from torch import autocast, nn
from torch.amp import GradScaler
from torch.utils import data


def fit_covariance_matrices(model: nn.Module, task, loader: data.DataLoader, factor_args, device):
    enable_amp = factor_args.amp_dtype is not None
    enable_grad_scaler = enable_amp and factor_args.amp_dtype == torch.float16
    scaler = GradScaler("cuda", init_scale=factor_args.amp_scale, enabled=enable_grad_scaler)
    gradient_scale = 1.0 / scaler.get_scale() if enable_grad_scaler else 1.0
    for module in model.modules():
        if hasattr(module, "set_gradient_scale"):
            module.set_gradient_scale(gradient_scale)

    num_processed = 0
    for batch in loader:
        batch = [t.to(device) for t in batch]
        model.zero_grad(set_to_none=True)
        with autocast(device_type=device.type, enabled=enable_amp, dtype=factor_args.amp_dtype):
            loss = task.compute_train_loss(batch=batch, model=model, sample=True)
        scaler.scale(loss).backward()
        num_processed += batch[0].shape[0]
    model.zero_grad(set_to_none=True)
    return num_processed
