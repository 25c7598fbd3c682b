import torch


def orth_reg(model, reg=1e-6):
    orth_loss = torch.zeros(1)
    for name, param in model.named_parameters():
        if "bias" not in name:
            param_flat = param.view(param.shape[0], -1)
            sym = torch.mm(param_flat, torch.t(param_flat))
            sym -= torch.eye(param_flat.shape[0], device=param.device)
            orth_loss = orth_loss.to(param.device) + (reg * sym.abs().sum())
    return orth_loss


def train_step(model, criterion, optimizer, inputs, targets):
    optimizer.zero_grad()
    loss = criterion(model(inputs), targets) + orth_reg(model)
    loss.backward()
    optimizer.step()
    return loss.item()
