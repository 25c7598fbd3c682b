import torch
import torch.nn as nn
import torch.nn.functional as F

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def quantize(weight, scales, threshold=0.05):
    delta = threshold * weight.abs().max()
    pos = (weight > delta).float()
    neg = (weight < -delta).float()
    return scales[0] * pos - scales[1] * neg


def build_ttq(model, lr=1e-3):
    weights_to_be_quantized = [m.weight for m in model.modules() if isinstance(m, (nn.Conv2d, nn.Linear))]
    scaling_factors = [torch.ones(2, requires_grad=True).to(device) for _ in range(len(weights_to_be_quantized))]  # expect: TCK108
    optimizer = torch.optim.Adam(
        [{"params": model.parameters()}, {"params": scaling_factors, "lr": lr * 0.1}], lr=lr
    )
    return weights_to_be_quantized, scaling_factors, optimizer


def train_step(model, batch, target, weights, scales, optimizer):
    full_precision = [w.data.clone() for w in weights]
    for w, s in zip(weights, scales):
        w.data = quantize(w.data, s)
    loss = F.cross_entropy(model(batch), target)
    optimizer.zero_grad()
    loss.backward()
    for w, fp in zip(weights, full_precision):
        w.data = fp
    optimizer.step()
    return loss.item()
