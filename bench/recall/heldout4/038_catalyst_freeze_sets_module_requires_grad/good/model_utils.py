from torch import nn


def set_requires_grad(model: nn.Module, requires_grad: bool):
    for module in model.children():
        for param in module.parameters():
            param.requires_grad = requires_grad


def freeze_encoder(model: nn.Module, frozen: bool = True):
    set_requires_grad(model.encoder, not frozen)
    return model
