import os

import torch


def strip_module_prefix(state_dict):
    return {k[len("module."):] if k.startswith("module.") else k: v for k, v in state_dict.items()}


def resume(args, model, ema_model, optimizer):
    start_epoch, best_acc = 0, 0.0
    if args.resume:
        assert os.path.isfile(args.resume), "Error: no checkpoint directory found!"
        args.out = os.path.dirname(args.resume)
        checkpoint = torch.load(args.resume, map_location="cpu", weights_only=True)
        best_acc = checkpoint["best_acc"]
        start_epoch = checkpoint["epoch"]
        model.load_state_dict(strip_module_prefix(checkpoint["state_dict"]))
        optimizer.load_state_dict(checkpoint["optimizer"])
        ema_model.load_state_dict(strip_module_prefix(checkpoint["ema_state_dict"]))
    return start_epoch, best_acc
